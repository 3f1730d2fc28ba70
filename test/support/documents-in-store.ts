import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { encodingOf, goMarshal, namespaceKeyOf, sortKeysDeep, type Document, type Encoding } from '../../internal/ext';
import type { ReadStore, Store } from '../../internal/storage';
import { ALL } from './store';

/**
 * Import/export documents through a store (the import/export suites): our fixtures read as
 * text, whole-store dumps, and an independent check that documents were imported as Flipt
 * imports them. (Read back through a server's API instead: documents-in-api.ts.)
 */

/** Our import/export documents (test/fixtures/ext/README.md): `import/`, `export/`, `dataset/`. */
export const EXT_FIXTURES = join(__dirname, '../fixtures/ext');

/** A document by its path under test/fixtures/ext (`import/v1.3.yml`). */
export function fixture(path: string): { text: string; encoding: Encoding } {
  return { text: readFileSync(join(EXT_FIXTURES, path), 'utf8'), encoding: encodingOf(path)! };
}

/**
 * Everything a store holds, ids, timestamps and namespace revisions included: two dumps are
 * equal only if nothing at all was written in between.
 */
export async function dumpStore(store: ReadStore): Promise<unknown> {
  const namespaces = (await store.listNamespaces(ALL)).items;
  const out = [];
  for (const ns of namespaces) {
    const flags = (await store.listFlags(ns.key, ALL)).items;
    const rules = [];
    for (const flag of flags) {
      rules.push({ flag: flag.key, rules: (await store.listRules(ns.key, flag.key, ALL)).items, rollouts: (await store.listRollouts(ns.key, flag.key, ALL)).items });
    }
    out.push({ ns, revision: await store.getRevision(ns.key), flags, segments: (await store.listSegments(ns.key, ALL)).items, rules });
  }
  return out;
}

/** Segments the documents' rollouts name without defining them: the store must already hold them. */
export async function seedMissingSegments(store: Store, namespaces: Record<string, string[]>): Promise<void> {
  for (const [ns, keys] of Object.entries(namespaces)) {
    if (ns !== 'default') await store.createNamespace({ key: ns, name: ns, description: `${ns} namespace` });
    for (const key of keys) await store.createSegment(ns, key, { name: key, description: 'seeded', matchType: 'ALL_MATCH_TYPE' });
  }
}

/**
 * Checks, object by object through the store, that `docs` were imported as Flipt imports
 * them: an independent reading of the format (not the importer's plan), for every fixture.
 */
export async function expectImported(store: ReadStore, docs: Document[], options: { version: string } = { version: '1.4' }): Promise<void> {
  const implicitRanks = options.version !== '1.0';
  for (const doc of docs) {
    const ns = namespaceKeyOf(doc);
    for (const flag of doc.flags ?? []) {
      const stored = await store.getFlag(ns, flag.key!);
      const where = `${ns}/${flag.key}`;
      expect({ name: stored.name, description: stored.description, enabled: stored.enabled, type: stored.type }, where).toEqual({
        name: flag.name,
        description: flag.description ?? '',
        enabled: flag.enabled,
        type: flag.type ?? 'VARIANT_FLAG_TYPE',
      });
      expect(stored.metadata ?? {}, where).toEqual(flag.metadata ?? {});
      const variants = flag.variants ?? [];
      expect(
        stored.variants.map((v) => ({ key: v.key, name: v.name, description: v.description, attachment: v.attachment })),
        where,
      ).toEqual(
        variants.map((v) => ({
          key: v.key,
          name: v.name ?? '',
          description: v.description ?? '',
          attachment: v.attachment === undefined ? '' : goMarshal(sortKeysDeep(v.attachment)),
        })),
      );
      const defaults = variants.filter((v) => v.default);
      expect(stored.defaultVariant?.key ?? null, where).toBe(defaults.length > 0 ? defaults[defaults.length - 1].key : null);

      const keyOf = new Map(stored.variants.map((v) => [v.id, v.key]));
      const rules = (await store.listRules(ns, flag.key!, ALL)).items;
      const expectedRules = (flag.rules ?? [])
        .map((r, i) => ({ r, rank: r.rank ?? (implicitRanks ? i + 1 : 0) }))
        .sort((a, b) => a.rank - b.rank)
        .map(({ r }) => {
          const keys = typeof r.segment === 'string' ? [r.segment] : r.segment!.keys!;
          const operator = keys.length > 1 && typeof r.segment === 'object' ? (r.segment.operator ?? 'OR_SEGMENT_OPERATOR') : 'OR_SEGMENT_OPERATOR';
          return { keys, operator, distributions: (r.distributions ?? []).map((d) => [d.variant, d.rollout]) };
        });
      expect(
        rules.map((r) => ({ keys: r.segmentKeys, operator: r.segmentOperator, distributions: r.distributions.map((d) => [keyOf.get(d.variantId), d.rollout]) })),
        where,
      ).toEqual(expectedRules);
      expect(rules.map((r) => r.rank)).toEqual(rules.map((_, i) => i + 1));

      const rollouts = (await store.listRollouts(ns, flag.key!, ALL)).items;
      expect(
        rollouts.map((r) => ({ rank: r.rank, description: r.description, segment: r.segment, threshold: r.threshold })),
        where,
      ).toEqual(
        (flag.rollouts ?? []).map((r, i) => {
          const keys = r.segment ? (r.segment.keys?.length ? r.segment.keys : [r.segment.key!]) : [];
          return {
            rank: i + 1,
            description: r.description ?? '',
            segment: r.segment
              ? { segmentKeys: keys, segmentOperator: keys.length > 1 ? (r.segment.operator ?? 'OR_SEGMENT_OPERATOR') : 'OR_SEGMENT_OPERATOR', value: r.segment.value ?? false }
              : null,
            threshold: r.threshold ? { percentage: r.threshold.percentage, value: r.threshold.value ?? false } : null,
          };
        }),
      );
    }
    for (const segment of doc.segments ?? []) {
      const stored = await store.getSegment(ns, segment.key!);
      expect({ name: stored.name, description: stored.description, matchType: stored.matchType }).toEqual({
        name: segment.name,
        description: segment.description ?? '',
        matchType: segment.match_type ?? 'ALL_MATCH_TYPE',
      });
      expect(stored.constraints.map((c) => ({ type: c.type, property: c.property, operator: c.operator, value: c.value, description: c.description }))).toEqual(
        (segment.constraints ?? []).map((c) => ({
          type: c.type,
          property: c.property,
          operator: c.operator!.toLowerCase(),
          value: c.value ?? '',
          description: c.description ?? '',
        })),
      );
    }
  }
}
