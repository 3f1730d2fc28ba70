import { describe, expect, it } from 'vitest';
import { backends } from '../../support/backends';
import { ALL, constraintInput, expectPennonError, flagInput, ruleInput, segmentInput, useStore } from '../../support/store';

/**
 * The storage contract, part 1 continued: segments and their constraints (and the rules and rollouts that
 * keep a segment from being deleted), tested on the Store interface directly. Every backend in
 * backends() runs the same tests. Semantics: Flipt's `internal/storage/sql/common/segment.go`.
 */
describe.each(backends())('storage contract on $name: segments and constraints', (backend) => {
  const t = useStore(backend);

  describe('segments and constraints', () => {
    it('creates, reads, updates a segment', async () => {
      const created = await t.store.createSegment('default', 's', segmentInput({ name: 'S', description: 'd', matchType: 'ANY_MATCH_TYPE' }));
      expect(created).toMatchObject({ namespaceKey: 'default', key: 's', name: 'S', description: 'd', matchType: 'ANY_MATCH_TYPE', constraints: [] });
      expect(await t.store.getSegment('default', 's')).toEqual(created);
      const updated = await t.store.updateSegment('default', 's', { name: 'T', description: '', matchType: 'ALL_MATCH_TYPE' });
      expect(updated).toMatchObject({ key: 's', name: 'T', description: '', matchType: 'ALL_MATCH_TYPE', createdAt: created.createdAt });
      expect(updated.updatedAt).toBeGreaterThan(created.updatedAt);
      expect(await t.store.getSegment('default', 's')).toEqual(updated);
    });

    it('refuses duplicates, missing namespaces and missing segments', async () => {
      await t.store.createSegment('default', 's', segmentInput());
      await expectPennonError(t.store.createSegment('default', 's', segmentInput()), 'invalid', 'segment "default/s" is not unique');
      await expectPennonError(t.store.createSegment('nope', 's', segmentInput()), 'not_found', 'namespace "nope" not found');
      await expectPennonError(t.store.getSegment('default', 'x'), 'not_found', 'segment "default/x" not found');
      await expectPennonError(t.store.updateSegment('default', 'x', segmentInput()), 'not_found', 'segment "default/x" not found');
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      const other = await t.store.createSegment('team', 's', segmentInput({ name: 'team s' }));
      expect(other.namespaceKey).toBe('team');
    });

    it('creates constraints, listed on the segment in creation order', async () => {
      await t.store.createSegment('default', 's', segmentInput());
      const c1 = await t.store.createConstraint('default', 's', constraintInput({ property: 'z', description: 'first' }));
      const c2 = await t.store.createConstraint(
        'default',
        's',
        constraintInput({ type: 'NUMBER_COMPARISON_TYPE', property: 'a', operator: 'gte', value: '3' }),
      );
      expect(c1).toMatchObject({
        namespaceKey: 'default',
        segmentKey: 's',
        type: 'STRING_COMPARISON_TYPE',
        property: 'z',
        operator: 'eq',
        value: 'eu',
        description: 'first',
      });
      expect(c1.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(c2).toMatchObject({ type: 'NUMBER_COMPARISON_TYPE', property: 'a', operator: 'gte', value: '3' });
      expect((await t.store.getSegment('default', 's')).constraints).toEqual([c1, c2]);
      expect((await t.store.listSegments('default', ALL)).items[0].constraints).toEqual([c1, c2]);
    });

    it('refuses a constraint on a missing segment', async () => {
      await expectPennonError(t.store.createConstraint('default', 'x', constraintInput()), 'not_found', 'segment "default/x" not found');
    });

    it('updates and deletes constraints; deleting a missing one succeeds', async () => {
      await t.store.createSegment('default', 's', segmentInput());
      const c1 = await t.store.createConstraint('default', 's', constraintInput());
      const c2 = await t.store.createConstraint('default', 's', constraintInput({ property: 'other' }));
      const updated = await t.store.updateConstraint(
        'default',
        's',
        c1.id,
        constraintInput({ type: 'BOOLEAN_COMPARISON_TYPE', property: 'beta', operator: 'true', value: '', description: 'x' }),
      );
      expect(updated).toMatchObject({ id: c1.id, type: 'BOOLEAN_COMPARISON_TYPE', property: 'beta', operator: 'true', value: '', description: 'x' });
      expect((await t.store.getSegment('default', 's')).constraints).toEqual([updated, c2]);
      await expectPennonError(
        t.store.updateConstraint('default', 's', '00000000-0000-0000-0000-000000000000', constraintInput()),
        'not_found',
        'constraint "00000000-0000-0000-0000-000000000000" not found',
      );
      await t.store.createSegment('default', 't', segmentInput());
      await expectPennonError(t.store.updateConstraint('default', 't', c2.id, constraintInput()), 'not_found', `constraint "${c2.id}" not found`);
      await t.store.deleteConstraint('default', 't', c2.id);
      expect((await t.store.getSegment('default', 's')).constraints).toEqual([updated, c2]);
      await t.store.deleteConstraint('default', 's', c1.id);
      await t.store.deleteConstraint('default', 's', c1.id);
      expect((await t.store.getSegment('default', 's')).constraints).toEqual([c2]);
    });

    it('deletes a segment with its constraints; deleting a missing one succeeds', async () => {
      await t.store.createSegment('default', 's', segmentInput());
      await t.store.createConstraint('default', 's', constraintInput());
      await t.store.deleteSegment('default', 's');
      await expectPennonError(t.store.getSegment('default', 's'), 'not_found', 'segment "default/s" not found');
      await t.store.deleteSegment('default', 's');
      const again = await t.store.createSegment('default', 's', segmentInput());
      expect(again.constraints).toEqual([]);
      expect((await t.store.getSegment('default', 's')).constraints).toEqual([]);
    });

    it('refuses to delete a segment a rule uses, until the rule is gone', async () => {
      await t.store.createFlag('default', flagInput('f'));
      await t.store.createSegment('default', 's', segmentInput());
      await t.store.createSegment('default', 'other', segmentInput());
      const rule = await t.store.createRule('default', 'f', 1, ruleInput('other', 's'));
      await expectPennonError(t.store.deleteSegment('default', 's'), 'invalid', 'segment "default/s" is in use');
      await expectPennonError(t.store.deleteSegment('default', 'other'), 'invalid', 'segment "default/other" is in use');
      expect((await t.store.getSegment('default', 's')).key).toBe('s');
      await t.store.updateRule('default', 'f', rule.id, ruleInput('other'));
      await t.store.deleteSegment('default', 's');
      await t.store.deleteRule('default', 'f', rule.id);
      await t.store.deleteSegment('default', 'other');
      expect((await t.store.listSegments('default', ALL)).total).toBe(0);
    });

    it('refuses to delete a segment a rollout uses, until the rollout is gone', async () => {
      await t.store.createFlag('default', flagInput('b', { type: 'BOOLEAN_FLAG_TYPE' }));
      await t.store.createSegment('default', 's', segmentInput());
      const rollout = await t.store.createRollout('default', 'b', 1, {
        description: '',
        threshold: null,
        segment: { segmentKeys: ['s'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true },
      });
      await expectPennonError(t.store.deleteSegment('default', 's'), 'invalid', 'segment "default/s" is in use');
      await t.store.deleteRollout('default', 'b', rollout.id);
      await t.store.deleteSegment('default', 's');
      await expectPennonError(t.store.getSegment('default', 's'), 'not_found', 'segment "default/s" not found');
    });
  });
});
