import { describe, expect, it } from 'vitest';
import { backends } from '../../support/backends';
import {
  ALL,
  constraintInput,
  expectPennonError,
  flagInput,
  flagUpdate,
  segmentInput,
  useStore,
  variantInput,
} from '../../support/store';

/**
 * The storage contract, part 1: namespaces, flags and variants (segments and constraints:
 * contract-segments.test.ts), tested on the Store interface directly. Every backend in
 * backends() runs the same tests. Semantics: Flipt's `internal/storage/sql/common/{namespace,flag}.go`.
 */
describe.each(backends())('storage contract on $name: namespaces, flags, variants', (backend) => {
  const t = useStore(backend);

  describe('namespaces', () => {
    it('has the seeded, protected default namespace', async () => {
      const ns = await t.store.getNamespace('default');
      expect(ns).toMatchObject({ key: 'default', name: 'Default', description: 'Default namespace', protected: true });
      expect(ns.createdAt).toBeGreaterThan(0);
      const page = await t.store.listNamespaces(ALL);
      expect(page.items.map((n) => n.key)).toEqual(['default']);
      expect(page.total).toBe(1);
      expect(page.next).toBeNull();
    });

    it('creates, reads and lists a namespace', async () => {
      const created = await t.store.createNamespace({ key: 'team', name: 'Team', description: 'the team' });
      expect(created).toMatchObject({ key: 'team', name: 'Team', description: 'the team', protected: false });
      expect(created.createdAt).toBeGreaterThan(0);
      expect(created.updatedAt).toBe(created.createdAt);
      expect(await t.store.getNamespace('team')).toEqual(created);
      const page = await t.store.listNamespaces(ALL);
      expect(page.items.map((n) => n.key)).toEqual(['default', 'team']);
      expect(page.total).toBe(2);
    });

    it('refuses a duplicate namespace key', async () => {
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      await expectPennonError(t.store.createNamespace({ key: 'team', name: 'Other', description: '' }), 'invalid', 'namespace "team" is not unique');
      expect((await t.store.getNamespace('team')).name).toBe('Team');
    });

    it('reports a missing namespace as not_found', async () => {
      await expectPennonError(t.store.getNamespace('nope'), 'not_found', 'namespace "nope" not found');
    });

    it('updates name and description, keeping key, protection and creation time', async () => {
      const created = await t.store.createNamespace({ key: 'team', name: 'Team', description: 'before' });
      const updated = await t.store.updateNamespace({ key: 'team', name: 'Renamed', description: 'after' });
      expect(updated).toMatchObject({ key: 'team', name: 'Renamed', description: 'after', protected: false, createdAt: created.createdAt });
      expect(updated.updatedAt).toBeGreaterThan(created.updatedAt);
      expect(await t.store.getNamespace('team')).toEqual(updated);
      const def = await t.store.updateNamespace({ key: 'default', name: 'Main', description: '' });
      expect(def.protected).toBe(true);
    });

    it('refuses to update a missing namespace', async () => {
      await expectPennonError(t.store.updateNamespace({ key: 'nope', name: 'N', description: '' }), 'not_found', 'namespace "nope" not found');
      await expectPennonError(t.store.getNamespace('nope'), 'not_found', 'namespace "nope" not found');
    });

    it('refuses to delete a missing namespace (unlike every other delete)', async () => {
      await expectPennonError(t.store.deleteNamespace('nope', false), 'not_found', 'namespace "nope" not found');
      await expectPennonError(t.store.deleteNamespace('nope', true), 'not_found', 'namespace "nope" not found');
    });

    it('deletes an empty namespace', async () => {
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      await t.store.deleteNamespace('team', false);
      await expectPennonError(t.store.getNamespace('team'), 'not_found', 'namespace "team" not found');
      expect((await t.store.listNamespaces(ALL)).total).toBe(1);
    });

    it('refuses to delete the protected namespace without force, before looking at its flags', async () => {
      await expectPennonError(t.store.deleteNamespace('default', false), 'invalid', 'namespace "default" is protected');
      await t.store.createFlag('default', flagInput('f'));
      await expectPennonError(t.store.deleteNamespace('default', false), 'invalid', 'namespace "default" is protected');
      expect((await t.store.getFlag('default', 'f')).key).toBe('f');
    });

    it('deletes even the protected namespace with force; a re-created one is unprotected', async () => {
      await t.store.createFlag('default', flagInput('f'));
      await t.store.deleteNamespace('default', true);
      await expectPennonError(t.store.getNamespace('default'), 'not_found', 'namespace "default" not found');
      const again = await t.store.createNamespace({ key: 'default', name: 'Default', description: '' });
      expect(again.protected).toBe(false);
      await expectPennonError(t.store.getFlag('default', 'f'), 'not_found', 'flag "default/f" not found');
    });

    it('refuses to delete a namespace with flags unless forced (flags first)', async () => {
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      await t.store.createFlag('team', flagInput('f'));
      await expectPennonError(
        t.store.deleteNamespace('team', false),
        'invalid',
        'namespace "team" cannot be deleted; flags must be deleted first',
      );
      expect((await t.store.getFlag('team', 'f')).key).toBe('f');
      await t.store.deleteFlag('team', 'f');
      await t.store.deleteNamespace('team', false);
      await expectPennonError(t.store.getNamespace('team'), 'not_found', 'namespace "team" not found');
    });

    it('deletes a namespace holding only segments without force; the segments go with it', async () => {
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      await t.store.createSegment('team', 's', segmentInput());
      await t.store.createConstraint('team', 's', constraintInput());
      await t.store.deleteNamespace('team', false);
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      await expectPennonError(t.store.getSegment('team', 's'), 'not_found', 'segment "team/s" not found');
      expect((await t.store.listSegments('team', ALL)).total).toBe(0);
    });
  });

  describe('flags', () => {
    it('creates and reads a flag', async () => {
      const metadata = { team: 'core', nested: { list: [1, 'two', true, null] } };
      const created = await t.store.createFlag('default', flagInput('f', { metadata }));
      expect(created).toMatchObject({
        namespaceKey: 'default',
        key: 'f',
        name: 'Flag f',
        description: 'about f',
        enabled: true,
        type: 'VARIANT_FLAG_TYPE',
        variants: [],
        defaultVariant: null,
        metadata,
      });
      expect(created.createdAt).toBeGreaterThan(0);
      expect(await t.store.getFlag('default', 'f')).toEqual(created);
    });

    it('keeps the flag type and a null metadata', async () => {
      const created = await t.store.createFlag('default', flagInput('b', { type: 'BOOLEAN_FLAG_TYPE', enabled: false }));
      const read = await t.store.getFlag('default', 'b');
      expect(read).toEqual(created);
      expect(read).toMatchObject({ type: 'BOOLEAN_FLAG_TYPE', enabled: false, metadata: null });
    });

    it('refuses a flag in a missing namespace', async () => {
      await expectPennonError(t.store.createFlag('nope', flagInput('f')), 'not_found', 'namespace "nope" not found');
    });

    it('refuses a duplicate key in the same namespace, allows it in another', async () => {
      await t.store.createFlag('default', flagInput('f'));
      await expectPennonError(t.store.createFlag('default', flagInput('f', { name: 'Again' })), 'invalid', 'flag "default/f" is not unique');
      expect((await t.store.getFlag('default', 'f')).name).toBe('Flag f');
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      const other = await t.store.createFlag('team', flagInput('f', { name: 'Team flag' }));
      expect(other).toMatchObject({ namespaceKey: 'team', key: 'f', name: 'Team flag' });
      expect((await t.store.getFlag('default', 'f')).name).toBe('Flag f');
    });

    it('reports a missing flag as not_found', async () => {
      await expectPennonError(t.store.getFlag('default', 'nope'), 'not_found', 'flag "default/nope" not found');
      await t.store.createFlag('default', flagInput('f'));
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      await expectPennonError(t.store.getFlag('team', 'f'), 'not_found', 'flag "team/f" not found');
    });

    it('updates as a full replace and keeps the type', async () => {
      const created = await t.store.createFlag('default', flagInput('f', { type: 'BOOLEAN_FLAG_TYPE' }));
      const updated = await t.store.updateFlag('default', 'f', flagUpdate({ name: 'New', description: '', enabled: false }));
      expect(updated).toMatchObject({ key: 'f', name: 'New', description: '', enabled: false, type: 'BOOLEAN_FLAG_TYPE' });
      expect(updated.createdAt).toBe(created.createdAt);
      expect(updated.updatedAt).toBeGreaterThan(created.updatedAt);
      expect(await t.store.getFlag('default', 'f')).toEqual(updated);
    });

    it('refuses to update a missing flag', async () => {
      await expectPennonError(t.store.updateFlag('default', 'nope', flagUpdate()), 'not_found', 'flag "default/nope" not found');
    });

    it('metadata: undefined leaves it, an object replaces it, null clears it', async () => {
      await t.store.createFlag('default', flagInput('f', { metadata: { a: 1, b: { c: [true] } } }));
      let flag = await t.store.updateFlag('default', 'f', flagUpdate({ metadata: undefined }));
      expect(flag.metadata).toEqual({ a: 1, b: { c: [true] } });
      expect((await t.store.getFlag('default', 'f')).metadata).toEqual({ a: 1, b: { c: [true] } });

      flag = await t.store.updateFlag('default', 'f', flagUpdate({ metadata: { z: 'only' } }));
      expect(flag.metadata).toEqual({ z: 'only' });
      expect((await t.store.getFlag('default', 'f')).metadata).toEqual({ z: 'only' });

      flag = await t.store.updateFlag('default', 'f', flagUpdate({ metadata: null }));
      expect(flag.metadata).toBeNull();
      expect((await t.store.getFlag('default', 'f')).metadata).toBeNull();

      flag = await t.store.updateFlag('default', 'f', flagUpdate({ metadata: undefined }));
      expect(flag.metadata).toBeNull();
    });

    it('sets and clears the default variant, which must belong to the flag', async () => {
      await t.store.createFlag('default', flagInput('f'));
      await t.store.createFlag('default', flagInput('g'));
      const v1 = await t.store.createVariant('default', 'f', variantInput('v1'));
      const foreign = await t.store.createVariant('default', 'g', variantInput('v1'));

      let flag = await t.store.updateFlag('default', 'f', flagUpdate({ defaultVariantId: v1.id }));
      expect(flag.defaultVariant).toEqual(v1);
      expect((await t.store.getFlag('default', 'f')).defaultVariant).toEqual(v1);

      await expectPennonError(
        t.store.updateFlag('default', 'f', flagUpdate({ name: 'X', defaultVariantId: foreign.id })),
        'invalid',
        `variant "${foreign.id}" not found for flag "default/f"`,
      );
      flag = await t.store.getFlag('default', 'f');
      expect(flag.defaultVariant).toEqual(v1);
      expect(flag.name).toBe('Renamed');

      flag = await t.store.updateFlag('default', 'f', flagUpdate({ defaultVariantId: '' }));
      expect(flag.defaultVariant).toBeNull();
      expect((await t.store.getFlag('default', 'f')).defaultVariant).toBeNull();
    });

    it('deletes a flag; deleting a missing flag succeeds', async () => {
      await t.store.createFlag('default', flagInput('f'));
      await t.store.deleteFlag('default', 'f');
      await expectPennonError(t.store.getFlag('default', 'f'), 'not_found', 'flag "default/f" not found');
      await t.store.deleteFlag('default', 'f');
      await t.store.deleteFlag('default', 'never');
      expect((await t.store.listFlags('default', ALL)).total).toBe(0);
    });
  });

  describe('variants', () => {
    it('creates variants with ids, listed on the flag in creation order', async () => {
      await t.store.createFlag('default', flagInput('f'));
      const a = await t.store.createVariant('default', 'f', variantInput('b-second', { attachment: '{"x":1}', description: 'd' }));
      const b = await t.store.createVariant('default', 'f', variantInput('a-first'));
      expect(a).toMatchObject({ namespaceKey: 'default', flagKey: 'f', key: 'b-second', name: 'Variant b-second', description: 'd', attachment: '{"x":1}' });
      expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(b.id).not.toBe(a.id);
      const flag = await t.store.getFlag('default', 'f');
      expect(flag.variants).toEqual([a, b]);
      expect((await t.store.listFlags('default', ALL)).items[0].variants).toEqual([a, b]);
    });

    it('refuses a variant on a missing flag', async () => {
      await expectPennonError(t.store.createVariant('default', 'nope', variantInput('v')), 'not_found', 'flag "default/nope" not found');
    });

    it('keeps variant keys unique per flag', async () => {
      await t.store.createFlag('default', flagInput('f'));
      await t.store.createFlag('default', flagInput('g'));
      await t.store.createVariant('default', 'f', variantInput('v'));
      await expectPennonError(t.store.createVariant('default', 'f', variantInput('v')), 'invalid', 'variant "v" is not unique for flag "default/f"');
      const onOther = await t.store.createVariant('default', 'g', variantInput('v'));
      expect(onOther.flagKey).toBe('g');
      expect((await t.store.getFlag('default', 'f')).variants).toHaveLength(1);

      const w = await t.store.createVariant('default', 'f', variantInput('w'));
      await expectPennonError(
        t.store.updateVariant('default', 'f', w.id, variantInput('v')),
        'invalid',
        'variant "v" is not unique for flag "default/f"',
      );
      expect((await t.store.getFlag('default', 'f')).variants.map((x) => x.key)).toEqual(['v', 'w']);
    });

    it('updates a variant, as seen on the flag and its default', async () => {
      await t.store.createFlag('default', flagInput('f'));
      const v = await t.store.createVariant('default', 'f', variantInput('v'));
      await t.store.updateFlag('default', 'f', flagUpdate({ defaultVariantId: v.id }));
      const updated = await t.store.updateVariant('default', 'f', v.id, { key: 'v2', name: 'N', description: 'D', attachment: '[1]' });
      expect(updated).toMatchObject({ id: v.id, key: 'v2', name: 'N', description: 'D', attachment: '[1]', createdAt: v.createdAt });
      expect(updated.updatedAt).toBeGreaterThan(v.updatedAt);
      const flag = await t.store.getFlag('default', 'f');
      expect(flag.variants).toEqual([updated]);
      expect(flag.defaultVariant).toEqual(updated);
    });

    it('refuses to update a missing variant, or one of another flag, naming the key', async () => {
      await t.store.createFlag('default', flagInput('f'));
      await t.store.createFlag('default', flagInput('g'));
      const v = await t.store.createVariant('default', 'g', variantInput('v'));
      await expectPennonError(t.store.updateVariant('default', 'f', v.id, variantInput('k')), 'not_found', 'variant "k" not found');
      await expectPennonError(
        t.store.updateVariant('default', 'f', '00000000-0000-0000-0000-000000000000', variantInput('k')),
        'not_found',
        'variant "k" not found',
      );
      expect((await t.store.getFlag('default', 'g')).variants[0].key).toBe('v');
    });

    it('deletes a variant; deleting a missing one, or through another flag, changes nothing', async () => {
      await t.store.createFlag('default', flagInput('f'));
      await t.store.createFlag('default', flagInput('g'));
      const v = await t.store.createVariant('default', 'f', variantInput('v'));
      const w = await t.store.createVariant('default', 'f', variantInput('w'));
      await t.store.deleteVariant('default', 'g', v.id);
      await t.store.deleteVariant('default', 'f', '00000000-0000-0000-0000-000000000000');
      expect((await t.store.getFlag('default', 'f')).variants).toEqual([v, w]);
      await t.store.deleteVariant('default', 'f', v.id);
      expect((await t.store.getFlag('default', 'f')).variants).toEqual([w]);
      const again = await t.store.createVariant('default', 'f', variantInput('v'));
      expect(again.id).not.toBe(v.id);
    });
  });
});
