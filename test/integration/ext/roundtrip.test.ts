import { afterEach, describe, expect, it } from 'vitest';
import { decodeDocuments, encodeDocuments, exportDocuments, exportText, importStream, type Encoding } from '../../../internal/ext';
import type { ConstraintInput, Store } from '../../../internal/storage';
import { ALL, openTestStore, type TestStore } from '../../support/store';

/** A namespace with every kind of object: export → import into a fresh database → export again gives the same. */

const c = (type: ConstraintInput['type'], property: string, operator: string, value = '', description = ''): ConstraintInput => ({
  type,
  property,
  operator,
  value,
  description,
});

async function buildEverything(store: Store): Promise<void> {
  const ns = 'everything';
  await store.createNamespace({ key: ns, name: 'Everything', description: 'one of each' });
  const segments: [string, 'ALL_MATCH_TYPE' | 'ANY_MATCH_TYPE', ConstraintInput[]][] = [
    ['strings', 'ANY_MATCH_TYPE', [
      c('STRING_COMPARISON_TYPE', 'plan', 'eq', 'pro', 'paying'), c('STRING_COMPARISON_TYPE', 'plan', 'neq', 'free'),
      c('STRING_COMPARISON_TYPE', 'a', 'empty'), c('STRING_COMPARISON_TYPE', 'b', 'notempty'), c('STRING_COMPARISON_TYPE', 'c', 'prefix', 'pr'),
      c('STRING_COMPARISON_TYPE', 'd', 'suffix', 'o'), c('STRING_COMPARISON_TYPE', 'e', 'contains', 'r&d'), c('STRING_COMPARISON_TYPE', 'f', 'notcontains', '<x>'),
      c('STRING_COMPARISON_TYPE', 'g', 'isoneof', '["a","b"]'), c('STRING_COMPARISON_TYPE', 'h', 'isnotoneof', '["c"]'),
    ]],
    ['numbers', 'ALL_MATCH_TYPE', [
      c('NUMBER_COMPARISON_TYPE', 'age', 'gte', '18'), c('NUMBER_COMPARISON_TYPE', 'score', 'lt', '1.5'),
      c('NUMBER_COMPARISON_TYPE', 'tier', 'isoneof', '[1,2.5]'), c('NUMBER_COMPARISON_TYPE', 'x', 'present'),
    ]],
    ['bools', 'ALL_MATCH_TYPE', [c('BOOLEAN_COMPARISON_TYPE', 'admin', 'true'), c('BOOLEAN_COMPARISON_TYPE', 'beta', 'false'), c('BOOLEAN_COMPARISON_TYPE', 'y', 'notpresent')]],
    ['dates', 'ANY_MATCH_TYPE', [
      c('DATETIME_COMPARISON_TYPE', 'signup', 'gte', '2024-01-01T08:00:00Z'), c('DATETIME_COMPARISON_TYPE', 'birthday', 'eq', '2000-02-29'),
      c('DATETIME_COMPARISON_TYPE', 'gone', 'notpresent'),
    ]],
    ['ids', 'ALL_MATCH_TYPE', [c('ENTITY_ID_COMPARISON_TYPE', 'entityId', 'isoneof', '["u1","u2"]'), c('ENTITY_ID_COMPARISON_TYPE', 'entityId', 'contains', 'user')]],
    ['plain', 'ALL_MATCH_TYPE', []],
  ];
  for (const [key, matchType, constraints] of segments) {
    await store.createSegment(ns, key, { name: key.toUpperCase(), description: `the ${key}`, matchType });
    for (const constraint of constraints) await store.createConstraint(ns, key, constraint);
  }

  await store.createFlag(ns, { key: 'colour', name: 'Colour', description: 'a variant flag', enabled: true, type: 'VARIANT_FLAG_TYPE', metadata: { team: 'web', nested: { list: [1, 'two', null], on: true } } });
  const a = await store.createVariant(ns, 'colour', { key: 'red', name: 'Red', description: 'warm', attachment: '{"hex":"#f00","rgb":[255,0,0],"meta":{"z":1,"a":null}}' });
  const b = await store.createVariant(ns, 'colour', { key: 'blue', name: '', description: '', attachment: '' });
  const d = await store.createVariant(ns, 'colour', { key: 'list', name: 'List', description: '', attachment: '[1,"<b>",{"k":false}]' });
  await store.updateFlag(ns, 'colour', { name: 'Colour', description: 'a variant flag', enabled: true, defaultVariantId: b.id, metadata: undefined });
  const r1 = await store.createRule(ns, 'colour', 1, { segmentKeys: ['strings'], segmentOperator: 'OR_SEGMENT_OPERATOR' });
  await store.createDistribution(ns, 'colour', r1.id, { variantId: a.id, rollout: 33.3 });
  await store.createDistribution(ns, 'colour', r1.id, { variantId: b.id, rollout: 66.7 });
  await store.createRule(ns, 'colour', 2, { segmentKeys: ['strings', 'numbers', 'dates'], segmentOperator: 'AND_SEGMENT_OPERATOR' });
  const r3 = await store.createRule(ns, 'colour', 3, { segmentKeys: ['bools', 'ids'], segmentOperator: 'OR_SEGMENT_OPERATOR' });
  await store.createDistribution(ns, 'colour', r3.id, { variantId: d.id, rollout: 100 });

  await store.createFlag(ns, { key: 'dark-mode', name: 'Dark mode', description: '', enabled: false, type: 'BOOLEAN_FLAG_TYPE', metadata: null });
  const rollouts = [
    { description: 'staff', segment: { segmentKeys: ['strings'], segmentOperator: 'OR_SEGMENT_OPERATOR' as const, value: true }, threshold: null },
    { description: '', segment: { segmentKeys: ['numbers', 'ids'], segmentOperator: 'AND_SEGMENT_OPERATOR' as const, value: false }, threshold: null },
    { description: 'either', segment: { segmentKeys: ['bools', 'dates'], segmentOperator: 'OR_SEGMENT_OPERATOR' as const, value: true }, threshold: null },
    { description: 'a third', segment: null, threshold: { percentage: 33.3, value: false } },
    { description: 'the rest', segment: null, threshold: { percentage: 100, value: true } },
  ];
  for (const [i, rollout] of rollouts.entries()) await store.createRollout(ns, 'dark-mode', i + 1, rollout);
  await store.createFlag(ns, { key: 'bare', name: 'Bare', description: '', enabled: false, type: 'VARIANT_FLAG_TYPE', metadata: null });

  await store.createFlag('default', { key: 'elsewhere', name: 'Elsewhere', description: 'in default', enabled: true, type: 'VARIANT_FLAG_TYPE', metadata: { k: 'v' } });
}

describe('round trip', () => {
  const opened: TestStore[] = [];
  const open = async () => {
    const fresh = await openTestStore();
    opened.push(fresh);
    return fresh.store;
  };
  afterEach(async () => {
    for (const fresh of opened.splice(0)) await fresh.close();
  });

  it.each([['yaml'], ['json']] as [Encoding][])('through %s: export, import into a fresh database, export again — equal', async (encoding) => {
    const source = await open();
    await buildEverything(source);
    const first = await exportDocuments(source, { allNamespaces: true });
    const text = encodeDocuments(first, encoding);
    let streamed = '';
    await exportText(source, { allNamespaces: true, flagsPerRead: 2 }, encoding, (piece) => void (streamed += piece));
    expect(streamed).toBe(text);

    const target = await open();
    const result = await importStream(target, decodeDocuments(text, { encoding }));
    expect(result.created).toEqual({ namespaces: 1, flags: 4, variants: 3, segments: 6, constraints: 22, rules: 3, distributions: 3, rollouts: 5 });
    const second = await exportDocuments(target, { allNamespaces: true });
    expect(second).toEqual(first);
    expect(encodeDocuments(second, encoding)).toBe(text);

    // The stores agree object by object, ids and timestamps aside (attachments as values: the
    // import writes them as Go does, keys sorted and <, >, & escaped).
    const strip = (value: unknown): unknown =>
      JSON.parse(
        JSON.stringify(value, (k, v) => {
          if (['id', 'ruleId', 'variantId', 'createdAt', 'updatedAt'].includes(k)) return undefined;
          return k === 'attachment' && v !== '' ? JSON.parse(v as string) : v;
        }),
      );
    for (const ns of ['default', 'everything']) {
      expect(strip((await target.listFlags(ns, ALL)).items)).toEqual(strip((await source.listFlags(ns, ALL)).items));
      expect(strip((await target.listSegments(ns, ALL)).items)).toEqual(strip((await source.listSegments(ns, ALL)).items));
    }
    for (const flag of ['colour', 'dark-mode']) {
      expect(strip((await target.listRules('everything', flag, ALL)).items)).toEqual(strip((await source.listRules('everything', flag, ALL)).items));
      expect(strip((await target.listRollouts('everything', flag, ALL)).items)).toEqual(strip((await source.listRollouts('everything', flag, ALL)).items));
    }
  });

  it('exports what it was built from', async () => {
    const source = await open();
    await buildEverything(source);
    const [, doc] = await exportDocuments(source, { allNamespaces: true });
    const colour = doc.flags!.find((f) => f.key === 'colour')!;
    expect(colour.metadata).toEqual({ nested: { list: [1, 'two', null], on: true }, team: 'web' });
    expect(colour.variants).toEqual([
      { key: 'red', name: 'Red', description: 'warm', attachment: { hex: '#f00', meta: { a: null, z: 1 }, rgb: [255, 0, 0] } },
      { default: true, key: 'blue' },
      { key: 'list', name: 'List', attachment: [1, '<b>', { k: false }] },
    ]);
    expect(colour.rules![2]).toEqual({ segment: { keys: ['bools', 'ids'], operator: 'OR_SEGMENT_OPERATOR' }, distributions: [{ variant: 'list', rollout: 100 }] });
    expect(doc.flags!.find((f) => f.key === 'dark-mode')!.rollouts).toEqual([
      { description: 'staff', segment: { key: 'strings', value: true } },
      { segment: { keys: ['numbers', 'ids'], operator: 'AND_SEGMENT_OPERATOR' } },
      { description: 'either', segment: { keys: ['bools', 'dates'], value: true } },
      { description: 'a third', threshold: { percentage: 33.3 } },
      { description: 'the rest', threshold: { percentage: 100, value: true } },
    ]);
    expect(doc.segments!.find((s) => s.key === 'dates')!.constraints![1]).toEqual({ type: 'DATETIME_COMPARISON_TYPE', property: 'birthday', operator: 'eq', value: '2000-02-29' });
  });
});
