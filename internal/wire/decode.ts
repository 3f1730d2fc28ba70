import type { Constraint, Distribution, Flag, Micros, Namespace, Rollout, Rule, Segment, Variant } from '../core/types';
import type {
  ConstraintJson,
  DistributionJson,
  FlagJson,
  NamespaceJson,
  Received,
  RolloutJson,
  RuleJson,
  SegmentJson,
  SegmentKeysJson,
  VariantJson,
} from './types';

/**
 * Flipt's JSON → domain objects: how the HTTP client (`pennon evaluate --address`, HttpStore)
 * and the dashboard's console read a server's answers back, so that a remote flag can be
 * explained locally with the same evaluator. A field protojson left out is its zero value.
 */

/** Milliseconds are all JavaScript's Date keeps; unreadable or missing text is 0. */
export const microsFromJson = (t: unknown): Micros => (typeof t === 'string' ? Date.parse(t) * 1000 || 0 : 0);

/** Flipt's one-or-many segment shape back to a list. */
export function segmentKeysFromJson(o: Received<SegmentKeysJson>): string[] {
  if (o.segmentKeys && o.segmentKeys.length > 0) return [...o.segmentKeys];
  return o.segmentKey ? [o.segmentKey] : [];
}

export function namespaceFromJson(n: Received<NamespaceJson>): Namespace {
  return {
    key: n.key ?? '',
    name: n.name ?? '',
    description: n.description ?? '',
    protected: n.protected === true,
    createdAt: microsFromJson(n.createdAt),
    updatedAt: microsFromJson(n.updatedAt),
  };
}

export function variantFromJson(v: Received<VariantJson>): Variant {
  return {
    id: v.id ?? '',
    namespaceKey: v.namespaceKey ?? '',
    flagKey: v.flagKey ?? '',
    key: v.key ?? '',
    name: v.name ?? '',
    description: v.description ?? '',
    attachment: v.attachment ?? '',
    createdAt: microsFromJson(v.createdAt),
    updatedAt: microsFromJson(v.updatedAt),
  };
}

export function flagFromJson(f: Received<FlagJson>): Flag {
  return {
    namespaceKey: f.namespaceKey ?? '',
    key: f.key ?? '',
    name: f.name ?? '',
    description: f.description ?? '',
    enabled: f.enabled === true,
    type: f.type ?? 'VARIANT_FLAG_TYPE',
    variants: (f.variants ?? []).map((v) => variantFromJson(v ?? {})),
    defaultVariant: f.defaultVariant ? variantFromJson(f.defaultVariant) : null,
    metadata: (f.metadata as Record<string, unknown> | null | undefined) ?? null,
    createdAt: microsFromJson(f.createdAt),
    updatedAt: microsFromJson(f.updatedAt),
  };
}

export function constraintFromJson(c: Received<ConstraintJson>): Constraint {
  return {
    id: c.id ?? '',
    namespaceKey: c.namespaceKey ?? '',
    segmentKey: c.segmentKey ?? '',
    type: c.type ?? 'UNKNOWN_COMPARISON_TYPE',
    property: c.property ?? '',
    operator: c.operator ?? '',
    value: c.value ?? '',
    description: c.description ?? '',
    createdAt: microsFromJson(c.createdAt),
    updatedAt: microsFromJson(c.updatedAt),
  };
}

export function segmentFromJson(s: Received<SegmentJson>): Segment {
  return {
    namespaceKey: s.namespaceKey ?? '',
    key: s.key ?? '',
    name: s.name ?? '',
    description: s.description ?? '',
    matchType: s.matchType ?? 'ALL_MATCH_TYPE',
    constraints: (s.constraints ?? []).map((c) => constraintFromJson(c ?? {})),
    createdAt: microsFromJson(s.createdAt),
    updatedAt: microsFromJson(s.updatedAt),
  };
}

export function distributionFromJson(d: Received<DistributionJson>): Distribution {
  return {
    id: d.id ?? '',
    ruleId: d.ruleId ?? '',
    variantId: d.variantId ?? '',
    rollout: d.rollout ?? 0,
    createdAt: microsFromJson(d.createdAt),
    updatedAt: microsFromJson(d.updatedAt),
  };
}

export function ruleFromJson(r: Received<RuleJson>): Rule {
  return {
    id: r.id ?? '',
    namespaceKey: r.namespaceKey ?? '',
    flagKey: r.flagKey ?? '',
    segmentKeys: segmentKeysFromJson(r),
    segmentOperator: r.segmentOperator ?? 'OR_SEGMENT_OPERATOR',
    rank: r.rank ?? 0,
    distributions: (r.distributions ?? []).map((d) => distributionFromJson(d ?? {})),
    createdAt: microsFromJson(r.createdAt),
    updatedAt: microsFromJson(r.updatedAt),
  };
}

export function rolloutFromJson(r: Received<RolloutJson>): Rollout {
  return {
    id: r.id ?? '',
    namespaceKey: r.namespaceKey ?? '',
    flagKey: r.flagKey ?? '',
    type: r.type ?? 'UNKNOWN_ROLLOUT_TYPE',
    rank: r.rank ?? 0,
    description: r.description ?? '',
    threshold: r.threshold ? { percentage: r.threshold.percentage ?? 0, value: r.threshold.value === true } : null,
    segment: r.segment
      ? { segmentKeys: segmentKeysFromJson(r.segment), segmentOperator: r.segment.segmentOperator ?? 'OR_SEGMENT_OPERATOR', value: r.segment.value === true }
      : null,
    createdAt: microsFromJson(r.createdAt),
    updatedAt: microsFromJson(r.updatedAt),
  };
}
