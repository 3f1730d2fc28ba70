import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { encodeDocuments, exportDocuments, exportText, type Document, type Encoding, type ExportOptions, type StreamExportOptions } from '../../../internal/ext';
import type { Store } from '../../../internal/storage';
import { fixture } from '../../support/documents-in-store';
import { useStore } from '../../support/store';

/**
 * Export against the expected documents of test/fixtures/ext/export. The data is built through
 * the store (not the importer) from each document's own content, in an order that makes sorting
 * matter. Their rollouts name segments no document defines (`staff`, `vip`), as Flipt's export
 * tests do with a mocked lister; a real store refuses that, so they are created, the export
 * lists them too, and they are taken out before comparing.
 */

const parseYaml = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as Document);
function parseJson(text: string): Document[] {
  try {
    return [JSON.parse(text) as Document];
  } catch {
    return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Document);
  }
}

/** The streamed export's text, as its pieces arrive. */
async function streamed(store: Store, options: StreamExportOptions, encoding: Encoding): Promise<string> {
  let out = '';
  await exportText(store, options, encoding, (piece) => void (out += piece));
  return out;
}

/** Segments referred to but not defined by a document. */
function undefinedSegments(doc: Document): string[] {
  const defined = new Set((doc.segments ?? []).map((s) => s.key));
  const used = (doc.flags ?? []).flatMap((f) => [
    ...(f.rules ?? []).flatMap((r) => (typeof r.segment === 'string' ? [r.segment] : (r.segment?.keys ?? []))),
    ...(f.rollouts ?? []).flatMap((r) => (r.segment ? (r.segment.keys ?? [r.segment.key!]) : [])),
  ]);
  return [...new Set(used.filter((k) => !defined.has(k)))];
}

/** Creates what `docs` describe through the store; `shuffle` reverses every list so that only sorting restores the order. */
async function seed(store: Store, docs: Document[], shuffle: boolean): Promise<Set<string>> {
  const order = <T>(list: T[] | undefined) => (shuffle ? [...(list ?? [])].reverse() : (list ?? []));
  const extras = new Set<string>();
  for (const doc of order(docs)) {
    const ns = typeof doc.namespace === 'object' ? doc.namespace : { key: doc.namespace };
    const key = ns.key!;
    const input = { key, name: ns.name ?? key, description: ns.description ?? '' };
    if (key === 'default') await store.updateNamespace(input);
    else await store.createNamespace(input);
    for (const missing of undefinedSegments(doc)) {
      extras.add(missing);
      await store.createSegment(key, missing, { name: missing, description: '', matchType: 'ALL_MATCH_TYPE' });
    }
    for (const s of order(doc.segments)) {
      await store.createSegment(key, s.key!, { name: s.name!, description: s.description ?? '', matchType: s.match_type as 'ANY_MATCH_TYPE' });
      for (const c of s.constraints ?? []) {
        await store.createConstraint(key, s.key!, { type: c.type as 'STRING_COMPARISON_TYPE', property: c.property!, operator: c.operator!, value: c.value ?? '', description: c.description ?? '' });
      }
    }
    for (const f of order(doc.flags)) {
      await store.createFlag(key, { key: f.key!, name: f.name!, description: f.description ?? '', enabled: f.enabled, type: f.type as 'VARIANT_FLAG_TYPE', metadata: f.metadata ?? null });
      const ids = new Map<string, string>();
      for (const v of order(f.variants)) {
        const attachment = v.attachment === undefined ? '' : JSON.stringify(v.attachment);
        ids.set(v.key!, (await store.createVariant(key, f.key!, { key: v.key!, name: v.name ?? '', description: v.description ?? '', attachment })).id);
      }
      const byDefault = (f.variants ?? []).find((v) => v.default);
      if (byDefault) {
        await store.updateFlag(key, f.key!, { name: f.name!, description: f.description ?? '', enabled: f.enabled, defaultVariantId: ids.get(byDefault.key!)!, metadata: undefined });
      }
      for (const [i, r] of (f.rules ?? []).entries()) {
        const keys = typeof r.segment === 'string' ? [r.segment] : r.segment!.keys!;
        const op = typeof r.segment === 'object' ? (r.segment.operator as 'AND_SEGMENT_OPERATOR') : 'OR_SEGMENT_OPERATOR';
        const rule = await store.createRule(key, f.key!, i + 1, { segmentKeys: keys, segmentOperator: op });
        for (const d of r.distributions ?? []) await store.createDistribution(key, f.key!, rule.id, { variantId: ids.get(d.variant!)!, rollout: d.rollout });
      }
      for (const [i, r] of (f.rollouts ?? []).entries()) {
        const segment = r.segment && {
          segmentKeys: r.segment.keys ?? [r.segment.key!],
          segmentOperator: (r.segment.operator ?? 'OR_SEGMENT_OPERATOR') as 'OR_SEGMENT_OPERATOR',
          value: r.segment.value ?? false,
        };
        await store.createRollout(key, f.key!, i + 1, { description: r.description ?? '', segment: segment ?? null, threshold: r.threshold ? { percentage: r.threshold.percentage, value: r.threshold.value ?? false } : null });
      }
    }
  }
  return extras;
}

function withoutSegments(docs: Document[], extras: Set<string>): Document[] {
  return docs.map((doc) => {
    const segments = (doc.segments ?? []).filter((s) => !extras.has(s.key!));
    const { segments: _, ...rest } = doc;
    return segments.length > 0 ? { ...rest, segments } : rest;
  });
}

const CASES: { name: string; options: ExportOptions; shuffle: boolean }[] = [
  { name: 'default', options: { namespaces: ['default'] }, shuffle: false },
  { name: 'default-sorted', options: { namespaces: ['default'], sortByKey: true }, shuffle: true },
  { name: 'default-and-shop', options: { namespaces: ['default', 'shop'] }, shuffle: false },
  { name: 'default-and-shop-sorted', options: { namespaces: ['default', 'shop'], sortByKey: true }, shuffle: true },
  { name: 'all-namespaces', options: { allNamespaces: true }, shuffle: false },
  { name: 'all-namespaces-sorted', options: { allNamespaces: true, sortByKey: true }, shuffle: true },
];

describe('export matches the expected export documents', () => {
  const ctx = useStore();

  it.each(CASES)('$name', async ({ name, options, shuffle }) => {
    const { store } = ctx;
    const expectedYaml = parseYaml(fixture(`export/${name}.yml`).text);
    const expectedJson = parseJson(fixture(`export/${name}.json`).text);
    expect(expectedJson).toEqual(expectedYaml);
    const extras = await seed(store, expectedYaml, shuffle);

    const docs = await exportDocuments(store, options);
    expect(withoutSegments(parseYaml(encodeDocuments(docs, 'yaml')), extras)).toEqual(expectedYaml);
    expect(withoutSegments(parseJson(encodeDocuments(docs, 'json')), extras)).toEqual(expectedJson);
    // The only difference: the segments no document defines (exported, since they exist).
    const exportedKeys = docs.flatMap((d) => (d.segments ?? []).map((s) => s.key));
    for (const key of extras) expect(exportedKeys).toContain(key);
    // Streamed, a page at a time (one flag per read, all at once, the default): the same text.
    for (const encoding of ['yaml', 'json'] as const) {
      for (const flagsPerRead of [1, 0, undefined]) expect(await streamed(store, { ...options, flagsPerRead }, encoding)).toBe(encodeDocuments(docs, encoding));
    }
  });

  it('writes Flipt\'s field order and leaves out empty fields', async () => {
    const { store } = ctx;
    await seed(store, parseYaml(fixture('export/default.yml').text), false);
    const [doc] = await exportDocuments(store);
    expect(Object.keys(doc)).toEqual(['version', 'namespace', 'flags', 'segments']);
    expect(Object.keys(doc.flags![0])).toEqual(['key', 'name', 'type', 'description', 'enabled', 'metadata', 'variants', 'rules']);
    expect(doc.flags![0].variants![1]).toEqual({ default: true, key: 'classic' });
    expect(doc.flags![0].rules).toEqual([
      { segment: 'beta-testers', distributions: [{ variant: 'one-page', rollout: 100 }] },
      { segment: { keys: ['beta-testers', 'returning'], operator: 'AND_SEGMENT_OPERATOR' } },
    ]);
    // Go encodes maps with sorted keys.
    expect(Object.keys(doc.flags![0].variants![0].attachment as object)).toEqual(['coupon', 'express', 'label', 'limits', 'price', 'ratio', 'steps', 'weights']);
    expect(Object.keys(doc.segments![1])).toEqual(['key', 'name', 'description', 'constraints', 'match_type']);
    const yaml = encodeDocuments([doc], 'yaml');
    expect(yaml.startsWith('version: "1.4"\nnamespace:\n  key: default\n  name: Default\n  description: Main storefront\nflags:\n- key: checkout\n')).toBe(true);
    expect(yaml).not.toMatch(/rank:/);
  });

  it('exports namespaces in the order asked, and fails on one that does not exist', async () => {
    const { store } = ctx;
    await store.createNamespace({ key: 'b', name: 'B', description: '' });
    expect((await exportDocuments(store, { namespaces: ['b', 'default'] })).map((d) => [d.version, d.namespace])).toEqual([
      ['1.4', { key: 'b', name: 'B' }],
      [undefined, { key: 'default', name: 'Default', description: 'Default namespace' }],
    ]);
    await expect(exportDocuments(store, { namespaces: ['nope'] })).rejects.toThrow('namespace "nope" not found');
    // A namespace with neither flags nor segments, streamed: its head alone.
    for (const encoding of ['yaml', 'json'] as const) {
      expect(await streamed(store, { namespaces: ['b', 'default'] }, encoding)).toBe(encodeDocuments(await exportDocuments(store, { namespaces: ['b', 'default'] }), encoding));
    }
    await expect(streamed(store, { namespaces: ['nope'] }, 'yaml')).rejects.toThrow('namespace "nope" not found');
  });
});
