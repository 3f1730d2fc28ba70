import type { Flag as StoredFlag, Namespace, Rollout as StoredRollout, Rule as StoredRule, Segment as StoredSegment } from '../core';
import type { ListParams, ReadStore } from '../storage';
import type { Constraint, Document, Flag, Rollout, Rule, Segment, Variant } from './document';
import { byBytes, sortKeysDeep } from './json';
import { EXPORT_VERSION } from './version';

/**
 * Reading namespaces back into documents, as Flipt's exporter writes them: version 1.4 on the
 * first document only, Go's field order, empty fields left out, rank never written (rules are
 * in rank order), enum names as text, attachments as native values, `default: true` on the
 * default variant, metadata only when set.
 */

export interface ExportSource
  extends Pick<ReadStore, 'getNamespace' | 'listNamespaces' | 'listFlags' | 'listSegments' | 'listRules' | 'listRollouts'> {
  /** When present, the export reads one consistent state (no locks held). */
  readConsistently?<T>(fn: (source: ExportSource) => Promise<T>): Promise<T>;
}

export interface ExportOptions {
  /** Namespaces in the order asked (default: `default`); ignored with `allNamespaces`. */
  namespaces?: string[];
  /** Every namespace, in creation order (by key with `sortByKey`). */
  allNamespaces?: boolean;
  /** Sort flags, segments and variants by key (and namespaces, with `allNamespaces`). */
  sortByKey?: boolean;
  /** Flags whose rules and rollouts are read at once (helps over HTTP). */
  concurrency?: number;
}

export const ALL: ListParams = { limit: 0, offset: 0 };

export async function exportDocuments(source: ExportSource, options: ExportOptions = {}): Promise<Document[]> {
  return consistently(source, async (s) => {
    const namespaces = await namespacesToExport(s, options);
    const docs: Document[] = [];
    for (const [i, ns] of namespaces.entries()) docs.push(await exportNamespace(s, ns, i === 0, options));
    return docs;
  });
}

/** `run` on one consistent state where the source can give one. */
export function consistently<T>(source: ExportSource, run: (source: ExportSource) => Promise<T>): Promise<T> {
  return source.readConsistently ? source.readConsistently(run) : run(source);
}

export async function namespacesToExport(source: ExportSource, options: ExportOptions): Promise<Namespace[]> {
  if (options.allNamespaces) {
    const list = (await source.listNamespaces(ALL)).items;
    return options.sortByKey ? [...list].sort((a, b) => byBytes(a.key, b.key)) : list;
  }
  const keys = options.namespaces && options.namespaces.length > 0 ? options.namespaces : ['default'];
  const out: Namespace[] = [];
  for (const key of keys) out.push(await source.getNamespace(key));
  return out;
}

/** Drops undefined fields, keeping the order of the rest (Go's struct order). */
function compact<T extends object>(fields: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out as T;
}

const text = (s: string) => (s === '' ? undefined : s);
const nonEmpty = <T>(list: T[]) => (list.length > 0 ? list : undefined);

async function exportNamespace(source: ExportSource, ns: Namespace, first: boolean, options: ExportOptions): Promise<Document> {
  const flags = (await source.listFlags(ns.key, ALL)).items;
  if (options.sortByKey) flags.sort((a, b) => byBytes(a.key, b.key));
  const exported = await exportFlags(source, ns.key, flags, options);
  return compact<Document>({ ...documentHead(ns, first), flags: nonEmpty(exported), segments: nonEmpty(await exportSegments(source, ns.key, options)) });
}

/** A document's fields before its lists: the version (on the first document only) and the namespace. */
export function documentHead(ns: Namespace, first: boolean): Pick<Document, 'version' | 'namespace'> {
  return compact({ version: first ? EXPORT_VERSION : undefined, namespace: compact({ key: ns.key, name: text(ns.name), description: text(ns.description) }) });
}

/** Stored flags as documents, in their order, each with its rules and rollouts (a few flags read at once). */
export function exportFlags(source: ExportSource, ns: string, flags: StoredFlag[], options: ExportOptions): Promise<Flag[]> {
  return mapLimited(flags, options.concurrency ?? 8, async (flag) => {
    const [rules, rollouts] = await Promise.all([source.listRules(ns, flag.key, ALL), source.listRollouts(ns, flag.key, ALL)]);
    return exportFlag(flag, rules.items, rollouts.items, options.sortByKey ?? false);
  });
}

/** The namespace's segments as documents, by key with `sortByKey`. */
export async function exportSegments(source: ExportSource, ns: string, options: ExportOptions): Promise<Segment[]> {
  const segments = (await source.listSegments(ns, ALL)).items.map(exportSegment);
  return options.sortByKey ? segments.sort((a, b) => byBytes(a.key ?? '', b.key ?? '')) : segments;
}

function exportFlag(flag: StoredFlag, rules: StoredRule[], rollouts: StoredRollout[], sortByKey: boolean): Flag {
  const variants = sortByKey ? [...flag.variants].sort((a, b) => byBytes(a.key, b.key)) : flag.variants;
  const keyOfVariant = new Map(flag.variants.map((variant) => [variant.id, variant.key]));
  return compact<Flag>({
    key: flag.key,
    name: text(flag.name),
    type: flag.type,
    description: text(flag.description),
    enabled: flag.enabled,
    metadata: flag.metadata && Object.keys(flag.metadata).length > 0 ? (sortKeysDeep(flag.metadata) as Record<string, unknown>) : undefined,
    variants: nonEmpty(
      variants.map((variant) =>
        compact<Variant>({
          default: flag.defaultVariant?.id === variant.id ? true : undefined,
          key: variant.key,
          name: text(variant.name),
          description: text(variant.description),
          attachment: attachmentOf(variant.attachment),
        }),
      ),
    ),
    rules: nonEmpty(rules.map((rule) => exportRule(rule, keyOfVariant))),
    rollouts: nonEmpty(rollouts.map(exportRollout)),
  });
}

/** The stored JSON text as a native value (maps sorted, as Go's map encoding sorts them); absent when empty or null. */
function attachmentOf(stored: string): unknown {
  if (stored === '') return undefined;
  const value: unknown = JSON.parse(stored);
  return value === null ? undefined : sortKeysDeep(value);
}

function exportRule(rule: StoredRule, keyOfVariant: Map<string, string>): Rule {
  return compact<Rule>({
    // One segment is written as its key; several as keys with their operator.
    segment: rule.segmentKeys.length === 1 ? rule.segmentKeys[0] : { keys: rule.segmentKeys, operator: rule.segmentOperator },
    distributions: nonEmpty(rule.distributions.map((d) => compact({ variant: text(keyOfVariant.get(d.variantId) ?? ''), rollout: d.rollout }))),
  });
}

function exportRollout(rollout: StoredRollout): Rollout {
  const { segment, threshold } = rollout;
  return compact<Rollout>({
    description: text(rollout.description),
    segment: segment
      ? compact({
          key: segment.segmentKeys.length === 1 ? segment.segmentKeys[0] : undefined,
          keys: segment.segmentKeys.length > 1 ? segment.segmentKeys : undefined,
          // Flipt writes the operator only when it is AND.
          operator: segment.segmentOperator === 'AND_SEGMENT_OPERATOR' ? segment.segmentOperator : undefined,
          value: segment.value ? true : undefined,
        })
      : undefined,
    threshold: threshold ? compact({ percentage: threshold.percentage, value: threshold.value ? true : undefined }) : undefined,
  });
}

function exportSegment(segment: StoredSegment): Segment {
  return compact<Segment>({
    key: segment.key,
    name: text(segment.name),
    description: text(segment.description),
    constraints: nonEmpty(
      segment.constraints.map((c) =>
        compact<Constraint>({
          type: c.type,
          property: text(c.property),
          operator: text(c.operator),
          // Verbatim: version 1.4 writes isoneof lists as their JSON text.
          value: text(c.value),
          description: text(c.description),
        }),
      ),
    ),
    match_type: segment.matchType,
  });
}

/** `fn` over `items` with at most `limit` calls in flight; results in input order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}
