import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { expectStatus, type ApiClient } from './server';

/**
 * Import/export documents through a server's HTTP API (the `pennon flag` end-to-end tests): the
 * fixtures parsed independently of internal/ext (the `yaml` package and JSON.parse), and a
 * comparison of parsed documents with what the API returns. (Through a store: documents-in-store.ts.)
 */

/** The import documents and the data set's two namespaces (test/fixtures/ext/README.md). */
export const IMPORT_DOCUMENTS = join(__dirname, '../fixtures/ext/import');
export const DATASET = join(__dirname, '../fixtures/ext/dataset/full');

type Json = any;
export interface Doc {
  version?: string;
  namespace?: string | { key: string; name?: string; description?: string };
  flags?: Json[];
  segments?: Json[];
}

/** A fixture's documents: a YAML stream, or JSON (one object, or one per line; `#` lines skipped). */
export function parseFixture(path: string): Doc[] {
  const text = readFileSync(path, 'utf8');
  if (!path.endsWith('.json')) {
    return parseAllDocuments(text).map((d) => {
      expect(d.errors).toEqual([]);
      return (d.toJS() ?? {}) as Doc;
    });
  }
  const body = text
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join('\n')
    .trim();
  try {
    return [JSON.parse(body) as Doc];
  } catch {
    return body
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Doc);
  }
}

export const nsOf = (doc: Doc): string =>
  typeof doc.namespace === 'string' ? doc.namespace || 'default' : doc.namespace?.key || 'default';

const segmentKeysOf = (segment: Json): string[] => (typeof segment === 'string' ? [segment] : segment.key ? [segment.key] : segment.keys);

/** Segment keys that flags refer to but no document of the stream defines, per namespace. */
export function undefinedSegments(docs: Doc[]): Map<string, Set<string>> {
  const defined = new Map<string, Set<string>>();
  for (const doc of docs) for (const s of doc.segments ?? []) (defined.get(nsOf(doc)) ?? defined.set(nsOf(doc), new Set()).get(nsOf(doc))!).add(s.key);
  const missing = new Map<string, Set<string>>();
  for (const doc of docs) {
    const ns = nsOf(doc);
    for (const flag of doc.flags ?? []) {
      const refs = [...(flag.rules ?? []), ...(flag.rollouts ?? [])].flatMap((r: Json) => (r.segment ? segmentKeysOf(r.segment) : []));
      for (const key of refs) if (!defined.get(ns)?.has(key)) (missing.get(ns) ?? missing.set(ns, new Set()).get(ns)!).add(key);
    }
  }
  return missing;
}

/** Back to a database holding only an empty `default` namespace, through the API. */
export async function resetViaApi(api: ApiClient): Promise<void> {
  const { namespaces } = expectStatus(await api.get('/api/v1/namespaces'), 200);
  for (const ns of namespaces as { key: string }[]) expectStatus(await api.delete(`/api/v1/namespaces/${ns.key}?force=true`), 200);
  expectStatus(await api.post('/api/v1/namespaces', { key: 'default', name: 'Default', description: 'Default namespace' }), 200);
}

const byRank = <T>(items: T[]): T[] =>
  items
    .map((item, i) => ({ item, rank: (item as Json).rank ?? i + 1, i }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((x) => x.item);

/** Every flag, rule, rollout, segment and constraint of `docs`, read back through the HTTP API. */
export async function expectDocumentsInApi(api: ApiClient, docs: Doc[], seeded: Map<string, Set<string>> = new Map()): Promise<void> {
  const flagKeys = new Map<string, string[]>();
  const segmentKeys = new Map<string, string[]>();
  for (const doc of docs) {
    const ns = nsOf(doc);
    const p = `/api/v1/namespaces/${ns}`;
    const namespace = expectStatus(await api.get(p), 200);
    if (typeof doc.namespace === 'object' && doc.namespace.name) expect(namespace.name).toBe(doc.namespace.name);
    flagKeys.set(ns, [...(flagKeys.get(ns) ?? []), ...(doc.flags ?? []).map((f) => f.key)]);
    segmentKeys.set(ns, [...(segmentKeys.get(ns) ?? []), ...(doc.segments ?? []).map((s) => s.key)]);

    for (const flag of doc.flags ?? []) {
      const where = `${ns}/${flag.key}`;
      const got = expectStatus(await api.get(`${p}/flags/${flag.key}`), 200);
      expect({ where, name: got.name, description: got.description, enabled: got.enabled, type: got.type }).toEqual({
        where,
        name: flag.name,
        description: flag.description ?? '',
        enabled: flag.enabled ?? false,
        type: flag.type ?? 'VARIANT_FLAG_TYPE',
      });
      const variants: Json[] = flag.variants ?? [];
      expect(got.variants.map((v: Json) => ({ key: v.key, name: v.name, description: v.description, attachment: v.attachment === '' ? undefined : JSON.parse(v.attachment) }))).toEqual(
        variants.map((v) => ({ key: v.key, name: v.name ?? '', description: v.description ?? '', attachment: v.attachment ?? undefined })),
      );
      const defaults = variants.filter((v) => v.default === true);
      expect(got.defaultVariant?.key).toBe(defaults.at(-1)?.key);
      if (flag.metadata && Object.keys(flag.metadata).length > 0) expect(got.metadata).toEqual(flag.metadata);
      else expect(got.metadata ?? {}).toEqual({});

      const variantKey = new Map<string, string>(got.variants.map((v: Json) => [v.id, v.key]));
      const rules = expectStatus(await api.get(`${p}/flags/${flag.key}/rules`), 200).rules as Json[];
      expect(
        rules.map((r) => ({
          rank: r.rank,
          segments: r.segmentKeys.length > 0 ? r.segmentKeys : [r.segmentKey],
          operator: r.segmentOperator,
          distributions: r.distributions.map((d: Json) => [variantKey.get(d.variantId), d.rollout]),
        })),
      ).toEqual(
        byRank<Json>(flag.rules ?? []).map((r, i) => ({
          rank: i + 1,
          segments: segmentKeysOf(r.segment),
          operator: (typeof r.segment === 'object' && r.segment.operator) || 'OR_SEGMENT_OPERATOR',
          distributions: (r.distributions ?? []).map((d: Json) => [d.variant, d.rollout]),
        })),
      );

      if (got.type === 'BOOLEAN_FLAG_TYPE') {
        const rollouts = expectStatus(await api.get(`${p}/flags/${flag.key}/rollouts`), 200).rules as Json[];
        expect(
          rollouts.map((r) => ({
            rank: r.rank,
            description: r.description,
            type: r.type,
            rule: r.segment
              ? { keys: r.segment.segmentKeys.length > 0 ? r.segment.segmentKeys : [r.segment.segmentKey], operator: r.segment.segmentOperator, value: r.segment.value }
              : { percentage: r.threshold.percentage, value: r.threshold.value },
          })),
        ).toEqual(
          (flag.rollouts ?? []).map((r: Json, i: number) => ({
            rank: i + 1,
            description: r.description ?? '',
            type: r.segment ? 'SEGMENT_ROLLOUT_TYPE' : 'THRESHOLD_ROLLOUT_TYPE',
            rule: r.segment
              ? { keys: segmentKeysOf(r.segment), operator: r.segment.operator ?? 'OR_SEGMENT_OPERATOR', value: r.segment.value ?? false }
              : { percentage: r.threshold.percentage, value: r.threshold.value ?? false },
          })),
        );
      } else {
        expect(flag.rollouts ?? []).toEqual([]);
      }
    }

    for (const segment of doc.segments ?? []) {
      const got = expectStatus(await api.get(`${p}/segments/${segment.key}`), 200);
      expect({ key: got.key, name: got.name, description: got.description, matchType: got.matchType }).toEqual({
        key: segment.key,
        name: segment.name,
        description: segment.description ?? '',
        matchType: segment.match_type ?? 'ALL_MATCH_TYPE',
      });
      expect(got.constraints.map((c: Json) => [c.type, c.property, c.operator, c.value, c.description])).toEqual(
        (segment.constraints ?? []).map((c: Json) => [c.type, c.property, c.operator, c.value ?? '', c.description ?? '']),
      );
    }
  }

  // Nothing more than the documents (and the seeded segments) in each namespace.
  for (const [ns, keys] of flagKeys) {
    const listed = expectStatus(await api.get(`/api/v1/namespaces/${ns}/flags`), 200).flags.map((f: Json) => f.key);
    expect(listed.sort()).toEqual([...keys].sort());
  }
  for (const [ns, keys] of segmentKeys) {
    const listed = expectStatus(await api.get(`/api/v1/namespaces/${ns}/segments`), 200).segments.map((s: Json) => s.key);
    expect(listed.sort()).toEqual([...keys, ...(seeded.get(ns) ?? [])].sort());
  }
}
