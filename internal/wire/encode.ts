import type { Authentication, Constraint, Distribution, Flag, Micros, Namespace, Rollout, Rule, Segment, Variant } from '../core/types';
import type {
  AuthenticationJson,
  ConstraintJson,
  DistributionJson,
  FlagJson,
  NamespaceJson,
  RolloutJson,
  RuleJson,
  SegmentJson,
  SegmentKeysJson,
  TimestampJson,
  VariantJson,
} from './types';

/**
 * Domain objects → Flipt's JSON (protojson with EmitDefaultValues): camelCase, every zero value
 * written, enums by name, fields in proto order, timestamps RFC 3339 UTC.
 */

/** RFC 3339 in UTC with 0, 3 or 6 fractional digits, as protojson writes a µs timestamp. */
export function timestamp(micros: Micros): TimestampJson {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = micros - seconds * 1_000_000;
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  if (fraction === 0) return `${base}Z`;
  if (fraction % 1000 === 0) return `${base}.${String(fraction / 1000).padStart(3, '0')}Z`;
  return `${base}.${String(fraction).padStart(6, '0')}Z`;
}

/**
 * `rollout` and `percentage` are proto floats: Flipt writes the shortest text that reads back
 * as the same float32 (33.33, not 33.33000183105469).
 */
export function float32(n: number): number {
  const f = Math.fround(n);
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(f.toPrecision(digits));
    if (Math.fround(candidate) === f) return candidate;
  }
  return f;
}

export function namespaceToJson(n: Namespace): NamespaceJson {
  return {
    key: n.key,
    name: n.name,
    description: n.description,
    protected: n.protected,
    createdAt: timestamp(n.createdAt),
    updatedAt: timestamp(n.updatedAt),
  };
}

export function variantToJson(v: Variant): VariantJson {
  return {
    id: v.id,
    flagKey: v.flagKey,
    key: v.key,
    name: v.name,
    description: v.description,
    createdAt: timestamp(v.createdAt),
    updatedAt: timestamp(v.updatedAt),
    attachment: v.attachment,
    namespaceKey: v.namespaceKey,
  };
}

/**
 * `metadata` presence follows Flipt's SQL backend: omitted on a single flag without any,
 * `{}` in lists (set `inList`).
 */
export function flagToJson(f: Flag, options: { inList?: boolean } = {}): FlagJson {
  return {
    key: f.key,
    name: f.name,
    description: f.description,
    enabled: f.enabled,
    createdAt: timestamp(f.createdAt),
    updatedAt: timestamp(f.updatedAt),
    variants: f.variants.map(variantToJson),
    namespaceKey: f.namespaceKey,
    type: f.type,
    ...(f.defaultVariant && { defaultVariant: variantToJson(f.defaultVariant) }),
    ...(f.metadata ? { metadata: f.metadata } : options.inList ? { metadata: {} } : {}),
  };
}

/** A flag as an item of a list (`metadata` always present). */
export const flagInListToJson = (f: Flag): FlagJson => flagToJson(f, { inList: true });

export function constraintToJson(c: Constraint): ConstraintJson {
  return {
    id: c.id,
    segmentKey: c.segmentKey,
    type: c.type,
    property: c.property,
    operator: c.operator,
    value: c.value,
    createdAt: timestamp(c.createdAt),
    updatedAt: timestamp(c.updatedAt),
    namespaceKey: c.namespaceKey,
    description: c.description,
  };
}

export function segmentToJson(s: Segment): SegmentJson {
  return {
    key: s.key,
    name: s.name,
    description: s.description,
    createdAt: timestamp(s.createdAt),
    updatedAt: timestamp(s.updatedAt),
    constraints: s.constraints.map(constraintToJson),
    matchType: s.matchType,
    namespaceKey: s.namespaceKey,
  };
}

export function distributionToJson(d: Distribution): DistributionJson {
  return {
    id: d.id,
    ruleId: d.ruleId,
    variantId: d.variantId,
    rollout: float32(d.rollout),
    createdAt: timestamp(d.createdAt),
    updatedAt: timestamp(d.updatedAt),
  };
}

/** One segment is reported in `segmentKey`; two or more in `segmentKeys` (Flipt's shape rule). */
function segmentKeysToJson(keys: string[]): SegmentKeysJson {
  return keys.length === 1 ? { segmentKey: keys[0], segmentKeys: [] } : { segmentKey: '', segmentKeys: keys };
}

export function ruleToJson(r: Rule): RuleJson {
  const { segmentKey, segmentKeys } = segmentKeysToJson(r.segmentKeys);
  return {
    id: r.id,
    flagKey: r.flagKey,
    segmentKey,
    distributions: r.distributions.map(distributionToJson),
    rank: r.rank,
    createdAt: timestamp(r.createdAt),
    updatedAt: timestamp(r.updatedAt),
    namespaceKey: r.namespaceKey,
    segmentKeys,
    segmentOperator: r.segmentOperator,
  };
}

export function rolloutToJson(r: Rollout): RolloutJson {
  return {
    id: r.id,
    namespaceKey: r.namespaceKey,
    flagKey: r.flagKey,
    type: r.type,
    rank: r.rank,
    description: r.description,
    createdAt: timestamp(r.createdAt),
    updatedAt: timestamp(r.updatedAt),
    ...(r.segment && {
      segment: {
        segmentKey: segmentKeysToJson(r.segment.segmentKeys).segmentKey,
        value: r.segment.value,
        segmentKeys: segmentKeysToJson(r.segment.segmentKeys).segmentKeys,
        segmentOperator: r.segment.segmentOperator,
      },
    }),
    ...(r.threshold && { threshold: { percentage: float32(r.threshold.percentage), value: r.threshold.value } }),
  };
}

/** Authentications on the wire: Flipt's `Authentication` message (expiresAt omitted when unset). */
export function authenticationToJson(a: Authentication): AuthenticationJson {
  return {
    id: a.id,
    method: a.method,
    ...(a.expiresAt !== null && { expiresAt: timestamp(a.expiresAt) }),
    createdAt: timestamp(a.createdAt),
    updatedAt: timestamp(a.updatedAt),
    metadata: a.metadata,
  };
}
