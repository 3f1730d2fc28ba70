// core's modules, not its index (its clock imports node:crypto): the dashboard's console bundles
// these conversions, and `tsc -p web` checks them without Node's types.
import type { Constraint, Flag, NamespaceData, Rollout, Rule, Segment, Variant } from '../core/types';

/**
 * Reading a flag and everything it depends on back from the management API into the domain
 * shape, so that a remote flag can be explained locally with the same evaluator: `pennon
 * evaluate --address` (fetchFlagData), HttpStore, and the dashboard's console (its local.ts).
 * A field protojson left out is its zero value.
 */

type J = Record<string, any>;

const micros = (t: unknown) => (typeof t === 'string' ? Date.parse(t) * 1000 || 0 : 0);
/** Flipt's one-or-many segment shape back to a list. */
export const segmentKeysFromJson = (o: J): string[] => (o.segmentKeys?.length ? (o.segmentKeys as string[]) : o.segmentKey ? [o.segmentKey as string] : []);
const keysOf = segmentKeysFromJson;

function variant(v: J): Variant {
  return {
    id: v.id,
    namespaceKey: v.namespaceKey,
    flagKey: v.flagKey,
    key: v.key,
    name: v.name ?? '',
    description: v.description ?? '',
    attachment: v.attachment ?? '',
    createdAt: micros(v.createdAt),
    updatedAt: micros(v.updatedAt),
  };
}

export function flagFromJson(f: J): Flag {
  return {
    namespaceKey: f.namespaceKey,
    key: f.key,
    name: f.name ?? '',
    description: f.description ?? '',
    enabled: f.enabled === true,
    type: f.type ?? 'VARIANT_FLAG_TYPE',
    variants: (f.variants ?? []).map(variant),
    defaultVariant: f.defaultVariant ? variant(f.defaultVariant) : null,
    metadata: f.metadata ?? null,
    createdAt: micros(f.createdAt),
    updatedAt: micros(f.updatedAt),
  };
}

export function segmentFromJson(s: J): Segment {
  return {
    namespaceKey: s.namespaceKey,
    key: s.key,
    name: s.name ?? '',
    description: s.description ?? '',
    matchType: s.matchType ?? 'ALL_MATCH_TYPE',
    constraints: (s.constraints ?? []).map(
      (c: J): Constraint => ({
        id: c.id,
        namespaceKey: c.namespaceKey,
        segmentKey: c.segmentKey,
        type: c.type ?? 'UNKNOWN_COMPARISON_TYPE',
        property: c.property ?? '',
        operator: c.operator ?? '',
        value: c.value ?? '',
        description: c.description ?? '',
        createdAt: micros(c.createdAt),
        updatedAt: micros(c.updatedAt),
      }),
    ),
    createdAt: micros(s.createdAt),
    updatedAt: micros(s.updatedAt),
  };
}

export function ruleFromJson(r: J): Rule {
  return {
    id: r.id,
    namespaceKey: r.namespaceKey,
    flagKey: r.flagKey,
    segmentKeys: keysOf(r),
    segmentOperator: r.segmentOperator ?? 'OR_SEGMENT_OPERATOR',
    rank: r.rank,
    distributions: (r.distributions ?? []).map((d: J) => ({
      id: d.id,
      ruleId: d.ruleId,
      variantId: d.variantId,
      rollout: d.rollout ?? 0,
      createdAt: micros(d.createdAt),
      updatedAt: micros(d.updatedAt),
    })),
    createdAt: micros(r.createdAt),
    updatedAt: micros(r.updatedAt),
  };
}

export function rolloutFromJson(r: J): Rollout {
  return {
    id: r.id,
    namespaceKey: r.namespaceKey,
    flagKey: r.flagKey,
    type: r.type ?? 'UNKNOWN_ROLLOUT_TYPE',
    rank: r.rank,
    description: r.description ?? '',
    threshold: r.threshold ? { percentage: r.threshold.percentage ?? 0, value: r.threshold.value === true } : null,
    segment: r.segment
      ? { segmentKeys: keysOf(r.segment), segmentOperator: r.segment.segmentOperator ?? 'OR_SEGMENT_OPERATOR', value: r.segment.value === true }
      : null,
    createdAt: micros(r.createdAt),
    updatedAt: micros(r.updatedAt),
  };
}

/** One flag of a remote namespace, with the segments it uses, as evaluation data (`api`: an HttpApi). */
export async function fetchFlagData(api: { get<T>(path: string): Promise<T> }, ns: string, flagKey: string): Promise<NamespaceData> {
  const base = `/api/v1/namespaces/${encodeURIComponent(ns)}`;
  const flag = flagFromJson(await api.get<J>(`${base}/flags/${encodeURIComponent(flagKey)}`));
  const [rules, rollouts, segments] = await Promise.all([
    flag.type === 'VARIANT_FLAG_TYPE' ? api.get<J>(`${base}/flags/${encodeURIComponent(flagKey)}/rules`) : Promise.resolve({ rules: [] }),
    flag.type === 'BOOLEAN_FLAG_TYPE' ? api.get<J>(`${base}/flags/${encodeURIComponent(flagKey)}/rollouts`) : Promise.resolve({ rules: [] }),
    api.get<J>(`${base}/segments`),
  ]);
  return {
    key: ns,
    revision: '',
    flags: [flag],
    segments: (segments.segments ?? []).map(segmentFromJson),
    rules: flag.type === 'VARIANT_FLAG_TYPE' ? (rules.rules ?? []).map(ruleFromJson) : [],
    rollouts: flag.type === 'BOOLEAN_FLAG_TYPE' ? (rollouts.rules ?? []).map(rolloutFromJson) : [],
  };
}
