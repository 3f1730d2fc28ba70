import { describe, expect, it } from 'vitest';
import type { RolloutInput } from '../../../internal/storage';
import { backends } from '../../support/backends';
import {
  ALL,
  expectPennonError,
  flagInput,
  flagWithSegment,
  oneTo,
  rolloutRanks,
  ruleInput,
  ruleRanks,
  segmentInput,
  useStore,
} from '../../support/store';

/**
 * The storage contract, part 2: rules (dense ranks 1..n), distributions and rollouts.
 * Semantics: Flipt's `internal/storage/sql/common/rule.go` and `rollout.go`.
 */

const MISSING_ID = '00000000-0000-0000-0000-000000000000';

const threshold = (percentage: number, value = true, description = ''): RolloutInput => ({
  description,
  segment: null,
  threshold: { percentage, value },
});

const segmentRollout = (keys: string[], value = true, description = ''): RolloutInput => ({
  description,
  threshold: null,
  segment: { segmentKeys: keys, segmentOperator: keys.length > 1 ? 'AND_SEGMENT_OPERATOR' : 'OR_SEGMENT_OPERATOR', value },
});

describe.each(backends())('storage contract on $name: rules, distributions, rollouts', (backend) => {
  const t = useStore(backend);

  describe('rules', () => {
    it('creates a rule with its segments in the given order', async () => {
      await flagWithSegment(t.store, 'default', 'f');
      await t.store.createSegment('default', 'a', segmentInput());
      const rule = await t.store.createRule('default', 'f', 1, ruleInput('seg', 'a'));
      expect(rule).toMatchObject({
        namespaceKey: 'default',
        flagKey: 'f',
        segmentKeys: ['seg', 'a'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
        rank: 1,
        distributions: [],
      });
      expect(rule.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await t.store.getRule('default', 'f', rule.id)).toEqual(rule);
      const reversed = await t.store.createRule('default', 'f', 2, ruleInput('a', 'seg'));
      expect((await t.store.getRule('default', 'f', reversed.id)).segmentKeys).toEqual(['a', 'seg']);
    });

    it('inserts at the requested rank and keeps ranks dense', async () => {
      await flagWithSegment(t.store, 'default', 'f');
      const a = await t.store.createRule('default', 'f', 1, ruleInput('seg'));
      const b = await t.store.createRule('default', 'f', 2, ruleInput('seg'));
      expect([a.rank, b.rank]).toEqual([1, 2]);

      const c = await t.store.createRule('default', 'f', 1, ruleInput('seg'));
      expect(c.rank).toBe(1);
      expect(await ruleRanks(t.store, 'default', 'f')).toEqual({ ids: [c.id, a.id, b.id], ranks: [1, 2, 3] });
      expect((await t.store.getRule('default', 'f', a.id)).rank).toBe(2);
      expect((await t.store.getRule('default', 'f', b.id)).rank).toBe(3);

      const d = await t.store.createRule('default', 'f', 2, ruleInput('seg'));
      expect(d.rank).toBe(2);
      expect(await ruleRanks(t.store, 'default', 'f')).toEqual({ ids: [c.id, d.id, a.id, b.id], ranks: [1, 2, 3, 4] });

      const e = await t.store.createRule('default', 'f', 99, ruleInput('seg'));
      expect(e.rank).toBe(5);
      const last = await t.store.createRule('default', 'f', 6, ruleInput('seg'));
      expect(last.rank).toBe(6);
      expect(await ruleRanks(t.store, 'default', 'f')).toEqual({ ids: [c.id, d.id, a.id, b.id, e.id, last.id], ranks: oneTo(6) });
    });

    it('treats a rank below 1 as the first position', async () => {
      await flagWithSegment(t.store, 'default', 'f');
      const a = await t.store.createRule('default', 'f', 1, ruleInput('seg'));
      const b = await t.store.createRule('default', 'f', 0, ruleInput('seg'));
      expect(b.rank).toBe(1);
      expect(await ruleRanks(t.store, 'default', 'f')).toEqual({ ids: [b.id, a.id], ranks: [1, 2] });
    });

    it('refuses a rule on a missing flag or with a missing segment', async () => {
      await flagWithSegment(t.store, 'default', 'f');
      await expectPennonError(
        t.store.createRule('default', 'nope', 1, ruleInput('seg')),
        'not_found',
        'flag "default/nope" or segment "default/seg" not found',
      );
      await expectPennonError(
        t.store.createRule('default', 'f', 1, ruleInput('seg', 'ghost')),
        'not_found',
        'flag "default/f" or segment "default/ghost" not found',
      );
      expect((await t.store.listRules('default', 'f', ALL)).total).toBe(0);
    });

    it('reports a missing rule, or one asked for through another flag, as not_found', async () => {
      await flagWithSegment(t.store, 'default', 'f');
      await t.store.createFlag('default', flagInput('g'));
      const rule = await t.store.createRule('default', 'f', 1, ruleInput('seg'));
      await expectPennonError(t.store.getRule('default', 'f', MISSING_ID), 'not_found', `rule "default/${MISSING_ID}" not found`);
      await expectPennonError(t.store.getRule('default', 'g', rule.id), 'not_found', `rule "default/${rule.id}" not found`);
    });

    it('updates segments and operator, never the rank', async () => {
      await flagWithSegment(t.store, 'default', 'f');
      await t.store.createSegment('default', 'a', segmentInput());
      const first = await t.store.createRule('default', 'f', 1, ruleInput('seg'));
      const rule = await t.store.createRule('default', 'f', 2, ruleInput('seg'));
      const updated = await t.store.updateRule('default', 'f', rule.id, ruleInput('a', 'seg'));
      expect(updated).toMatchObject({ id: rule.id, rank: 2, segmentKeys: ['a', 'seg'], segmentOperator: 'AND_SEGMENT_OPERATOR' });
      expect(await t.store.getRule('default', 'f', rule.id)).toEqual(updated);
      expect((await t.store.getRule('default', 'f', first.id)).rank).toBe(1);
      await expectPennonError(
        t.store.updateRule('default', 'f', MISSING_ID, ruleInput('seg')),
        'not_found',
        `rule "default/${MISSING_ID}" not found`,
      );
      await expectPennonError(
        t.store.updateRule('default', 'f', rule.id, ruleInput('ghost')),
        'not_found',
        'flag "default/f" or segment "default/ghost" not found',
      );
      expect((await t.store.getRule('default', 'f', rule.id)).segmentKeys).toEqual(['a', 'seg']);
    });

    it('re-ranks the rest when a rule is deleted; a missing rule deletes quietly', async () => {
      await flagWithSegment(t.store, 'default', 'f');
      const ids: string[] = [];
      for (const rank of oneTo(5)) ids.push((await t.store.createRule('default', 'f', rank, ruleInput('seg'))).id);
      await t.store.deleteRule('default', 'f', ids[1]);
      expect(await ruleRanks(t.store, 'default', 'f')).toEqual({ ids: [ids[0], ids[2], ids[3], ids[4]], ranks: [1, 2, 3, 4] });
      await t.store.deleteRule('default', 'f', ids[0]);
      expect(await ruleRanks(t.store, 'default', 'f')).toEqual({ ids: [ids[2], ids[3], ids[4]], ranks: [1, 2, 3] });
      await t.store.deleteRule('default', 'f', ids[4]);
      await t.store.deleteRule('default', 'f', MISSING_ID);
      expect(await ruleRanks(t.store, 'default', 'f')).toEqual({ ids: [ids[2], ids[3]], ranks: [1, 2] });
      await expectPennonError(t.store.getRule('default', 'f', ids[1]), 'not_found', `rule "default/${ids[1]}" not found`);
    });

    it('orders rules: listed ids first in list order, unknown ids ignored, the rest after', async () => {
      await flagWithSegment(t.store, 'default', 'f');
      await flagWithSegment(t.store, 'default', 'g');
      const foreign = await t.store.createRule('default', 'g', 1, ruleInput('seg'));
      const ids: string[] = [];
      for (const rank of oneTo(5)) ids.push((await t.store.createRule('default', 'f', rank, ruleInput('seg'))).id);
      const [r1, r2, r3, r4, r5] = ids;

      await t.store.orderRules('default', 'f', [r5, r1, r4, r2, r3]);
      expect(await ruleRanks(t.store, 'default', 'f')).toEqual({ ids: [r5, r1, r4, r2, r3], ranks: oneTo(5) });

      await t.store.orderRules('default', 'f', [r3, MISSING_ID, foreign.id, r2]);
      expect(await ruleRanks(t.store, 'default', 'f')).toEqual({ ids: [r3, r2, r5, r1, r4], ranks: oneTo(5) });
      expect((await t.store.getRule('default', 'f', r4)).rank).toBe(5);
      expect((await t.store.getRule('default', 'g', foreign.id)).rank).toBe(1);
    });
  });

  describe('distributions', () => {
    it('keeps a rule\'s distributions in creation order', async () => {
      const { variants } = await flagWithSegment(t.store, 'default', 'f', ['z', 'a', 'm']);
      const rule = await t.store.createRule('default', 'f', 1, ruleInput('seg'));
      const d1 = await t.store.createDistribution('default', 'f', rule.id, { variantId: variants[0].id, rollout: 50 });
      const d2 = await t.store.createDistribution('default', 'f', rule.id, { variantId: variants[1].id, rollout: 25 });
      const d3 = await t.store.createDistribution('default', 'f', rule.id, { variantId: variants[2].id, rollout: 12.5 });
      expect(d1).toMatchObject({ ruleId: rule.id, variantId: variants[0].id, rollout: 50 });
      expect(d1.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(d3.rollout).toBe(12.5);
      expect((await t.store.getRule('default', 'f', rule.id)).distributions).toEqual([d1, d2, d3]);
      expect((await t.store.listRules('default', 'f', ALL)).items[0].distributions).toEqual([d1, d2, d3]);
    });

    it('refuses a distribution whose rule or variant is not of the flag', async () => {
      const { variants } = await flagWithSegment(t.store, 'default', 'f', ['v']);
      const other = await flagWithSegment(t.store, 'default', 'g', ['w']);
      const rule = await t.store.createRule('default', 'f', 1, ruleInput('seg'));
      const foreignRule = await t.store.createRule('default', 'g', 1, ruleInput('seg'));
      const w = other.variants[0].id;
      await expectPennonError(
        t.store.createDistribution('default', 'f', rule.id, { variantId: w, rollout: 10 }),
        'not_found',
        `variant "${w}", rule "${rule.id}", flag "f" in namespace "default" not found`,
      );
      await expectPennonError(
        t.store.createDistribution('default', 'f', foreignRule.id, { variantId: variants[0].id, rollout: 10 }),
        'not_found',
        `variant "${variants[0].id}", rule "${foreignRule.id}", flag "f" in namespace "default" not found`,
      );
      await expectPennonError(
        t.store.createDistribution('default', 'f', MISSING_ID, { variantId: variants[0].id, rollout: 10 }),
        'not_found',
        `variant "${variants[0].id}", rule "${MISSING_ID}", flag "f" in namespace "default" not found`,
      );
      expect((await t.store.getRule('default', 'f', rule.id)).distributions).toEqual([]);
    });

    it('updates a distribution in place; a missing one is not_found', async () => {
      const { variants } = await flagWithSegment(t.store, 'default', 'f', ['a', 'b']);
      const rule = await t.store.createRule('default', 'f', 1, ruleInput('seg'));
      const d1 = await t.store.createDistribution('default', 'f', rule.id, { variantId: variants[0].id, rollout: 50 });
      const d2 = await t.store.createDistribution('default', 'f', rule.id, { variantId: variants[1].id, rollout: 50 });
      const updated = await t.store.updateDistribution('default', 'f', rule.id, d1.id, { variantId: variants[1].id, rollout: 75 });
      expect(updated).toMatchObject({ id: d1.id, ruleId: rule.id, variantId: variants[1].id, rollout: 75, createdAt: d1.createdAt });
      expect((await t.store.getRule('default', 'f', rule.id)).distributions).toEqual([updated, d2]);
      await expectPennonError(
        t.store.updateDistribution('default', 'f', rule.id, MISSING_ID, { variantId: variants[0].id, rollout: 1 }),
        'not_found',
        `distribution "${MISSING_ID}" not found`,
      );
    });

    it('deletes a distribution only with its variant id; missing ones delete quietly', async () => {
      const { variants } = await flagWithSegment(t.store, 'default', 'f', ['a', 'b']);
      const rule = await t.store.createRule('default', 'f', 1, ruleInput('seg'));
      const d1 = await t.store.createDistribution('default', 'f', rule.id, { variantId: variants[0].id, rollout: 50 });
      const d2 = await t.store.createDistribution('default', 'f', rule.id, { variantId: variants[1].id, rollout: 50 });
      await t.store.deleteDistribution('default', 'f', rule.id, d1.id, variants[1].id);
      expect((await t.store.getRule('default', 'f', rule.id)).distributions).toEqual([d1, d2]);
      await t.store.deleteDistribution('default', 'f', rule.id, d1.id, variants[0].id);
      await t.store.deleteDistribution('default', 'f', rule.id, d1.id, variants[0].id);
      await t.store.deleteDistribution('default', 'f', MISSING_ID, d2.id, variants[1].id);
      expect((await t.store.getRule('default', 'f', rule.id)).distributions).toEqual([d2]);
    });
  });

  describe('rollouts', () => {
    it('creates threshold and segment rollouts', async () => {
      await t.store.createFlag('default', flagInput('b', { type: 'BOOLEAN_FLAG_TYPE' }));
      await t.store.createSegment('default', 's1', segmentInput());
      await t.store.createSegment('default', 's2', segmentInput());
      const th = await t.store.createRollout('default', 'b', 1, threshold(37.5, false, 'some'));
      expect(th).toMatchObject({
        namespaceKey: 'default',
        flagKey: 'b',
        type: 'THRESHOLD_ROLLOUT_TYPE',
        rank: 1,
        description: 'some',
        threshold: { percentage: 37.5, value: false },
        segment: null,
      });
      const seg = await t.store.createRollout('default', 'b', 2, segmentRollout(['s2', 's1'], true));
      expect(seg).toMatchObject({
        type: 'SEGMENT_ROLLOUT_TYPE',
        rank: 2,
        threshold: null,
        segment: { segmentKeys: ['s2', 's1'], segmentOperator: 'AND_SEGMENT_OPERATOR', value: true },
      });
      expect(await t.store.getRollout('default', 'b', th.id)).toEqual(th);
      expect(await t.store.getRollout('default', 'b', seg.id)).toEqual(seg);
      expect((await t.store.listRollouts('default', 'b', ALL)).items).toEqual([th, seg]);
    });

    it('refuses a used rank and appends any other', async () => {
      await t.store.createFlag('default', flagInput('b', { type: 'BOOLEAN_FLAG_TYPE' }));
      const r1 = await t.store.createRollout('default', 'b', 1, threshold(10));
      await expectPennonError(t.store.createRollout('default', 'b', 1, threshold(20)), 'invalid', 'rank number: 1 already exists');
      const r2 = await t.store.createRollout('default', 'b', 2, threshold(20));
      await expectPennonError(t.store.createRollout('default', 'b', 2, threshold(30)), 'invalid', 'rank number: 2 already exists');
      await expectPennonError(t.store.createRollout('default', 'b', 1, threshold(30)), 'invalid', 'rank number: 1 already exists');
      const r3 = await t.store.createRollout('default', 'b', 50, threshold(30));
      expect(r3.rank).toBe(3);
      const r4 = await t.store.createRollout('default', 'b', 0, threshold(40));
      expect(r4.rank).toBe(4);
      expect(await rolloutRanks(t.store, 'default', 'b')).toEqual({ ids: [r1.id, r2.id, r3.id, r4.id], ranks: oneTo(4) });
    });

    it('refuses a rollout on a missing flag or with a missing segment', async () => {
      await t.store.createFlag('default', flagInput('b', { type: 'BOOLEAN_FLAG_TYPE' }));
      await t.store.createSegment('default', 's', segmentInput());
      await expectPennonError(
        t.store.createRollout('default', 'b', 1, segmentRollout(['s', 'ghost'])),
        'not_found',
        'flag "default/b or segment ghost" not found',
      );
      await expectPennonError(t.store.createRollout('default', 'nope', 1, segmentRollout(['s'])), 'not_found', /^flag "default\/nope/);
      await expectPennonError(t.store.createRollout('default', 'nope', 1, threshold(5)), 'not_found', /^flag "default\/nope/);
      expect((await t.store.listRollouts('default', 'b', ALL)).total).toBe(0);
    });

    it('updates a rollout of the same kind, refuses to change its kind', async () => {
      await t.store.createFlag('default', flagInput('b', { type: 'BOOLEAN_FLAG_TYPE' }));
      await t.store.createSegment('default', 's1', segmentInput());
      await t.store.createSegment('default', 's2', segmentInput());
      const th = await t.store.createRollout('default', 'b', 1, threshold(10, true, 'before'));
      const seg = await t.store.createRollout('default', 'b', 2, segmentRollout(['s1']));

      const th2 = await t.store.updateRollout('default', 'b', th.id, threshold(90, false, ''));
      expect(th2).toMatchObject({ id: th.id, rank: 1, type: 'THRESHOLD_ROLLOUT_TYPE', description: '', threshold: { percentage: 90, value: false } });
      expect(await t.store.getRollout('default', 'b', th.id)).toEqual(th2);

      const seg2 = await t.store.updateRollout('default', 'b', seg.id, segmentRollout(['s2', 's1'], false, 'now'));
      expect(seg2).toMatchObject({
        rank: 2,
        description: 'now',
        segment: { segmentKeys: ['s2', 's1'], segmentOperator: 'AND_SEGMENT_OPERATOR', value: false },
      });

      await expectPennonError(
        t.store.updateRollout('default', 'b', th.id, segmentRollout(['s1'])),
        'invalid',
        'cannot change type of rollout: have "THRESHOLD_ROLLOUT_TYPE" attempted "SEGMENT_ROLLOUT_TYPE"',
      );
      await expectPennonError(
        t.store.updateRollout('default', 'b', seg.id, threshold(5)),
        'invalid',
        'cannot change type of rollout: have "SEGMENT_ROLLOUT_TYPE" attempted "THRESHOLD_ROLLOUT_TYPE"',
      );
      await expectPennonError(
        t.store.updateRollout('default', 'b', MISSING_ID, threshold(5)),
        'not_found',
        `rollout "default/${MISSING_ID}" not found`,
      );
      await expectPennonError(t.store.getRollout('default', 'b', MISSING_ID), 'not_found', `rollout "default/${MISSING_ID}" not found`);
      expect(await t.store.getRollout('default', 'b', th.id)).toEqual(th2);
      expect(await t.store.getRollout('default', 'b', seg.id)).toEqual(seg2);
    });

    it('re-ranks on delete and orders like rules', async () => {
      await t.store.createFlag('default', flagInput('b', { type: 'BOOLEAN_FLAG_TYPE' }));
      const ids: string[] = [];
      for (const rank of oneTo(5)) ids.push((await t.store.createRollout('default', 'b', rank, threshold(rank))).id);
      const [r1, r2, r3, r4, r5] = ids;
      await t.store.deleteRollout('default', 'b', r2);
      await t.store.deleteRollout('default', 'b', MISSING_ID);
      expect(await rolloutRanks(t.store, 'default', 'b')).toEqual({ ids: [r1, r3, r4, r5], ranks: oneTo(4) });
      // After a delete, the freed-up top rank is usable again and the used ones are refused.
      await expectPennonError(t.store.createRollout('default', 'b', 4, threshold(1)), 'invalid', 'rank number: 4 already exists');

      await t.store.orderRollouts('default', 'b', [r5, MISSING_ID, r3]);
      expect(await rolloutRanks(t.store, 'default', 'b')).toEqual({ ids: [r5, r3, r1, r4], ranks: oneTo(4) });
      expect((await t.store.getRollout('default', 'b', r4)).rank).toBe(4);
      const r6 = await t.store.createRollout('default', 'b', 5, threshold(6));
      expect(r6.rank).toBe(5);
    });
  });
});
