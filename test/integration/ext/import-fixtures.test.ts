import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { decodeDocuments, importText, versionString } from '../../../internal/ext';
import { ALL, EXT_FIXTURES, READONLY_FIXTURES, expectImported, fixture, seedMissingSegments, useFreshStore } from './helpers';

/** Every document Flipt accepts, imported into a real SQLite store and read back through it. */

const REJECTED = ['import_invalid_version', 'import_v1_flag_type_not_supported', 'import_v1_rollouts_not_supported'];
const accepted = readdirSync(EXT_FIXTURES).filter((f) => f.startsWith('import') && !REJECTED.some((r) => f.startsWith(`${r}.`)));
/** Namespaces (besides default) whose documents name the unseeded `internal_users` segment. */
const USES_FOO = ['import_single_namespace_foo', 'import_two_namespaces_default_and_foo', 'import_yaml_stream_all_unique_namespaces'];

describe('importing the flipt-ext fixtures', () => {
  const ctx = useFreshStore();

  it.each(accepted.map((f) => [f]))('%s', async (file) => {
    const { store } = ctx;
    await seedMissingSegments(store, { default: ['internal_users'], ...(USES_FOO.some((s) => file.startsWith(s)) ? { foo: ['internal_users'] } : {}) });
    const { text, encoding } = fixture(file);
    const stream = decodeDocuments(text, { encoding });
    const result = await importText(store, text, { encoding });
    await expectImported(store, stream.documents, { version: versionString(stream.version) });
    const flags = stream.documents.reduce((n, d) => n + (d.flags?.length ?? 0), 0);
    expect(result.created.flags).toBe(flags);
    expect(result.created.segments).toBe(stream.documents.reduce((n, d) => n + (d.segments?.length ?? 0), 0));
  });

  it('stores import.yml exactly as Flipt does (compact sorted attachment, default variant, ranks)', async () => {
    const { store } = ctx;
    await seedMissingSegments(store, { default: ['internal_users'] });
    await importText(store, fixture('import.yml').text, { encoding: 'yaml' });
    const flag1 = await store.getFlag('default', 'flag1');
    expect(flag1).toMatchObject({ type: 'VARIANT_FLAG_TYPE', enabled: true, description: 'description', metadata: null });
    expect(flag1.variants.map((v) => [v.key, v.description, v.attachment])).toEqual([
      ['variant1', 'variant description', '{"answer":{"everything":42},"happy":true,"list":[1,0,2],"name":"Niels","object":{"currency":"USD","value":42.99},"pi":3.141}'],
    ]);
    expect(flag1.defaultVariant?.id).toBe(flag1.variants[0].id);
    const [rule] = (await store.listRules('default', 'flag1', ALL)).items;
    expect(rule).toMatchObject({ rank: 1, segmentKeys: ['segment1'], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    expect(rule.distributions.map((d) => [d.variantId, d.rollout])).toEqual([[flag1.variants[0].id, 100]]);
    const rollouts = (await store.listRollouts('default', 'flag2', ALL)).items;
    expect(rollouts.map((r) => [r.rank, r.type, r.description, r.segment, r.threshold])).toEqual([
      [1, 'SEGMENT_ROLLOUT_TYPE', 'enabled for internal users', { segmentKeys: ['internal_users'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true }, null],
      [2, 'THRESHOLD_ROLLOUT_TYPE', 'enabled for 50%', null, { percentage: 50, value: true }],
    ]);
    const segment = await store.getSegment('default', 'segment1');
    expect(segment.matchType).toBe('ANY_MATCH_TYPE');
    expect(segment.constraints.map((c) => [c.type, c.property, c.operator, c.value])).toEqual([['STRING_COMPARISON_TYPE', 'fizz', 'neq', 'buzz']]);
  });

  it('creates namespaces that are missing, naming them after their key', async () => {
    const { store } = ctx;
    await seedMissingSegments(store, { foo: ['internal_users'] });
    const result = await importText(store, fixture('import_yaml_stream_all_unique_namespaces.yml').text, { encoding: 'yaml' });
    expect(result.created.namespaces).toBe(1);
    expect(await store.getNamespace('bar')).toMatchObject({ key: 'bar', name: 'bar', description: '' });
    expect((await store.listNamespaces(ALL)).items.map((n) => n.key)).toEqual(['default', 'foo', 'bar']);
    // The third document has no namespace: default.
    expect((await store.listFlags('default', ALL)).items.map((f) => f.key)).toEqual(['flag3', 'flag4']);
    expect((await store.listFlags('bar', ALL)).items.map((f) => f.key)).toEqual(['flag3', 'flag4']);
  });

  it('reads JSON and YAML into the same store contents', async () => {
    const { store } = ctx;
    await seedMissingSegments(store, { default: ['internal_users'] });
    await importText(store, fixture('import_v1_3.json').text, { encoding: 'json' });
    const fromJson = await store.getFlag('default', 'flag2');
    expect(fromJson.metadata).toEqual({ label: 'bool', area: 12 });
    await expectImported(store, decodeDocuments(fixture('import_v1_3.yml').text, { encoding: 'yaml' }).documents);
  });
});

describe('importing the flipt-readonly data set', () => {
  const ctx = useFreshStore();

  it.each([['main'], ['alternate']])('%s/*.yaml', async (dir) => {
    const { store } = ctx;
    const files = readdirSync(join(READONLY_FIXTURES, dir)).filter((f) => f.endsWith('.yaml')).sort();
    expect(files).toEqual(['default.yaml', 'production.yaml']);
    for (const file of files) {
      const { text } = fixture(file, join(READONLY_FIXTURES, dir));
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
      await importText(store, fixture(file, join(READONLY_FIXTURES, 'main')).text, { encoding: 'yaml' });
    }
    expect(await store.getNamespace('production')).toMatchObject({ name: 'Production', description: '' });
    expect((await store.listFlags('default', ALL)).total).toBe(57);
    const [and] = (await store.listRules('default', 'flag_variant_and_segments', ALL)).items;
    expect(and).toMatchObject({ segmentKeys: ['segment_001', 'segment_anding'], segmentOperator: 'AND_SEGMENT_OPERATOR' });
    const rollouts = (await store.listRollouts('default', 'flag_boolean', ALL)).items;
    expect(rollouts.map((r) => r.segment?.value ?? r.threshold?.percentage)).toEqual([true, false, true, false, 50]);
    const flag001 = (await store.listRules('production', 'flag_001', ALL)).items;
    expect(flag001.map((r) => r.segmentKeys[0])).toEqual(Array.from({ length: 50 }, (_, i) => `segment_${String(i + 1).padStart(3, '0')}`));
    expect((await store.getSegment('default', 'segment_entity_id')).constraints[0]).toMatchObject({
      type: 'ENTITY_ID_COMPARISON_TYPE',
      property: 'entityId',
      value: 'user@flipt.io',
    });
    expect((await store.listRules('default', 'flag_no_distributions', ALL)).items[0].distributions).toEqual([]);
  });
});
