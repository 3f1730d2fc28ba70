import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { decodeDocuments, importText, versionString } from '../../../internal/ext';
import { EXT_FIXTURES, expectImported, fixture, seedMissingSegments } from '../../support/documents-in-store';
import { ALL, useStore } from '../../support/store';

/** Every document Flipt accepts, imported into a real SQLite store and read back through it. */

const REJECTED = ['bad-version', 'v1.0-with-type', 'v1.0-with-rollouts'];
const accepted = readdirSync(join(EXT_FIXTURES, 'import')).filter((f) => !REJECTED.some((r) => f.startsWith(`${r}.`)));
/** Documents whose namespace `shop` also names the `staff` segment that no document defines. */
const USES_SHOP = ['one-namespace', 'two-namespaces', 'stream-three-namespaces'];

describe('importing the import documents', () => {
  const ctx = useStore();

  it.each(accepted.map((f) => [f]))('%s', async (file) => {
    const { store } = ctx;
    await seedMissingSegments(store, { default: ['staff'], ...(USES_SHOP.some((s) => file.startsWith(`${s}.`)) ? { shop: ['staff'] } : {}) });
    const { text, encoding } = fixture(`import/${file}`);
    const stream = decodeDocuments(text, { encoding });
    const result = await importText(store, text, { encoding });
    await expectImported(store, stream.documents, { version: versionString(stream.version) });
    const flags = stream.documents.reduce((n, d) => n + (d.flags?.length ?? 0), 0);
    expect(result.created.flags).toBe(flags);
    expect(result.created.segments).toBe(stream.documents.reduce((n, d) => n + (d.segments?.length ?? 0), 0));
  });

  it('stores import/latest.yml exactly as Flipt does (compact sorted attachment, default variant, ranks)', async () => {
    const { store } = ctx;
    await seedMissingSegments(store, { default: ['staff'] });
    await importText(store, fixture('import/latest.yml').text, { encoding: 'yaml' });
    const checkout = await store.getFlag('default', 'checkout');
    expect(checkout).toMatchObject({ type: 'VARIANT_FLAG_TYPE', enabled: true, description: 'One-page checkout trial', metadata: null });
    expect(checkout.variants.map((v) => [v.key, v.description, v.attachment])).toEqual([
      [
        'one-page',
        'Everything on a single page',
        '{"express":true,"label":"Pay now","limits":{"daily":500},"price":{"amount":19.95,"currency":"EUR"},"ratio":0.618,"steps":1,"weights":[3,0,7]}',
      ],
    ]);
    expect(checkout.defaultVariant?.id).toBe(checkout.variants[0].id);
    const [rule] = (await store.listRules('default', 'checkout', ALL)).items;
    expect(rule).toMatchObject({ rank: 1, segmentKeys: ['beta-testers'], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    expect(rule.distributions.map((d) => [d.variantId, d.rollout])).toEqual([[checkout.variants[0].id, 100]]);
    const rollouts = (await store.listRollouts('default', 'dark-mode', ALL)).items;
    expect(rollouts.map((r) => [r.rank, r.type, r.description, r.segment, r.threshold])).toEqual([
      [1, 'SEGMENT_ROLLOUT_TYPE', 'on for staff', { segmentKeys: ['staff'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true }, null],
      [2, 'THRESHOLD_ROLLOUT_TYPE', 'on for a third of visitors', null, { percentage: 33, value: true }],
    ]);
    const segment = await store.getSegment('default', 'beta-testers');
    expect(segment.matchType).toBe('ANY_MATCH_TYPE');
    expect(segment.constraints.map((c) => [c.type, c.property, c.operator, c.value])).toEqual([['STRING_COMPARISON_TYPE', 'plan', 'neq', 'free']]);
  });

  it('creates namespaces that are missing, naming them after their key', async () => {
    const { store } = ctx;
    await seedMissingSegments(store, { shop: ['staff'] });
    const result = await importText(store, fixture('import/stream-three-namespaces.yml').text, { encoding: 'yaml' });
    expect(result.created.namespaces).toBe(1);
    expect(await store.getNamespace('outlet')).toMatchObject({ key: 'outlet', name: 'outlet', description: '' });
    expect((await store.listNamespaces(ALL)).items.map((n) => n.key)).toEqual(['default', 'shop', 'outlet']);
    // The third document has no namespace: default.
    expect((await store.listFlags('default', ALL)).items.map((f) => f.key)).toEqual(['wishlist', 'free-shipping']);
    expect((await store.listFlags('outlet', ALL)).items.map((f) => f.key)).toEqual(['wishlist', 'free-shipping']);
  });

  it('reads JSON and YAML into the same store contents', async () => {
    const { store } = ctx;
    await seedMissingSegments(store, { default: ['staff'] });
    await importText(store, fixture('import/v1.3.json').text, { encoding: 'json' });
    const fromJson = await store.getFlag('default', 'dark-mode');
    expect(fromJson.metadata).toEqual({ team: 'storefront', priority: 12 });
    await expectImported(store, decodeDocuments(fixture('import/v1.3.yml').text, { encoding: 'yaml' }).documents);
  });
});

describe('importing the data set', () => {
  const ctx = useStore();

  it.each([['full'], ['small']])('dataset/%s/*.yaml', async (dir) => {
    const { store } = ctx;
    const files = readdirSync(join(EXT_FIXTURES, 'dataset', dir)).filter((f) => f.endsWith('.yaml')).sort();
    expect(files).toEqual(['default.yaml', 'production.yaml']);
    for (const file of files) {
      const { text } = fixture(`dataset/${dir}/${file}`);
      const stream = decodeDocuments(text, { encoding: 'yaml' });
      await importText(store, text, { encoding: 'yaml' });
      await expectImported(store, stream.documents, { version: versionString(stream.version) });
      // Counted independently of the decoder.
      const plain = parse(text) as { namespace?: string | { key: string }; flags?: unknown[]; segments?: unknown[] };
      const ns = typeof plain.namespace === 'string' ? plain.namespace : (plain.namespace?.key ?? 'default');
      expect((await store.listFlags(ns, ALL)).total).toBe(plain.flags?.length ?? 0);
      expect((await store.listSegments(ns, ALL)).total).toBe(plain.segments?.length ?? 0);
    }
    expect((await store.listNamespaces(ALL)).items.map((n) => n.key)).toEqual(['default', 'production']);
  });

  it('keeps the data set\'s details: AND rules, false segment rollouts, entity ids, namespaces', async () => {
    const { store } = ctx;
    for (const file of ['default.yaml', 'production.yaml']) {
      await importText(store, fixture(`dataset/full/${file}`).text, { encoding: 'yaml' });
    }
    expect(await store.getNamespace('production')).toMatchObject({ name: 'Production', description: '' });
    expect((await store.listFlags('default', ALL)).total).toBe(27);
    const [and] = (await store.listRules('default', 'bundle-offer', ALL)).items;
    expect(and).toMatchObject({ segmentKeys: ['cohort-01', 'loyal'], segmentOperator: 'AND_SEGMENT_OPERATOR' });
    const rollouts = (await store.listRollouts('default', 'express-delivery', ALL)).items;
    expect(rollouts.map((r) => r.segment?.value ?? r.threshold?.percentage)).toEqual([true, false, true, false, 50]);
    const banner = (await store.listRules('production', 'banner-01', ALL)).items;
    expect(banner.map((r) => r.segmentKeys[0])).toEqual(Array.from({ length: 20 }, (_, i) => `cohort-${String(i + 1).padStart(2, '0')}`));
    expect((await store.getSegment('default', 'staff-ids')).constraints[0]).toMatchObject({
      type: 'ENTITY_ID_COMPARISON_TYPE',
      property: 'entityId',
      value: 'ops@example.com',
    });
    expect((await store.listRules('default', 'no-split', ALL)).items[0].distributions).toEqual([]);
  });
});
