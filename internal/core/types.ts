/**
 * Domain objects, shared by storage, management, evaluation and the wire layer.
 * Enum values are Flipt's proto names so that they read the same everywhere; the database
 * stores their numbers (see ENUM_NUMBERS below). Timestamps are epoch microseconds
 * (Flipt rounds write times to µs, and so do we).
 */

export const FLAG_TYPES = ['VARIANT_FLAG_TYPE', 'BOOLEAN_FLAG_TYPE'] as const;
export type FlagType = (typeof FLAG_TYPES)[number];

export const MATCH_TYPES = ['ALL_MATCH_TYPE', 'ANY_MATCH_TYPE'] as const;
export type MatchType = (typeof MATCH_TYPES)[number];

export const COMPARISON_TYPES = [
  'UNKNOWN_COMPARISON_TYPE',
  'STRING_COMPARISON_TYPE',
  'NUMBER_COMPARISON_TYPE',
  'BOOLEAN_COMPARISON_TYPE',
  'DATETIME_COMPARISON_TYPE',
  'ENTITY_ID_COMPARISON_TYPE',
] as const;
export type ComparisonType = (typeof COMPARISON_TYPES)[number];

export const SEGMENT_OPERATORS = ['OR_SEGMENT_OPERATOR', 'AND_SEGMENT_OPERATOR'] as const;
export type SegmentOperator = (typeof SEGMENT_OPERATORS)[number];

export const ROLLOUT_TYPES = ['UNKNOWN_ROLLOUT_TYPE', 'SEGMENT_ROLLOUT_TYPE', 'THRESHOLD_ROLLOUT_TYPE'] as const;
export type RolloutType = (typeof ROLLOUT_TYPES)[number];

/** Epoch microseconds. */
export type Micros = number;

export const DEFAULT_NAMESPACE = 'default';

export interface Namespace {
  key: string;
  name: string;
  description: string;
  protected: boolean;
  createdAt: Micros;
  updatedAt: Micros;
}

export interface Variant {
  id: string;
  namespaceKey: string;
  flagKey: string;
  key: string;
  name: string;
  description: string;
  /** Compact JSON text, or "" when there is none. */
  attachment: string;
  createdAt: Micros;
  updatedAt: Micros;
}

export interface Flag {
  namespaceKey: string;
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  type: FlagType;
  variants: Variant[];
  defaultVariant: Variant | null;
  /** null when the flag has no metadata (Flipt omits the field then on GET). */
  metadata: Record<string, unknown> | null;
  createdAt: Micros;
  updatedAt: Micros;
}

export interface Constraint {
  id: string;
  namespaceKey: string;
  segmentKey: string;
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  description: string;
  createdAt: Micros;
  updatedAt: Micros;
}

export interface Segment {
  namespaceKey: string;
  key: string;
  name: string;
  description: string;
  matchType: MatchType;
  constraints: Constraint[];
  createdAt: Micros;
  updatedAt: Micros;
}

export interface Distribution {
  id: string;
  ruleId: string;
  variantId: string;
  rollout: number;
  createdAt: Micros;
  updatedAt: Micros;
}

export interface Rule {
  id: string;
  namespaceKey: string;
  flagKey: string;
  /** In the order they were given. */
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
  rank: number;
  distributions: Distribution[];
  createdAt: Micros;
  updatedAt: Micros;
}

export interface RolloutSegment {
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
  value: boolean;
}

export interface RolloutThreshold {
  percentage: number;
  value: boolean;
}

export interface Rollout {
  id: string;
  namespaceKey: string;
  flagKey: string;
  type: RolloutType;
  rank: number;
  description: string;
  segment: RolloutSegment | null;
  threshold: RolloutThreshold | null;
  createdAt: Micros;
  updatedAt: Micros;
}

/** A page of a list: `next` is set when more items follow (its offset, and its first key or id). */
export interface Page<T> {
  items: T[];
  total: number;
  next: { offset: number; key: string } | null;
}

/** Everything evaluation needs from one namespace, as any store (SQL or Git) provides it. */
export interface NamespaceData {
  key: string;
  /** Changes on every write in the namespace (see ReadStore.getRevision). */
  revision: string;
  /** In creation order (OFREP bulk evaluates them in this order). */
  flags: Flag[];
  segments: Segment[];
  /** Any order; grouped by flag and sorted by rank when compiled. */
  rules: Rule[];
  rollouts: Rollout[];
}

export const AUTH_METHODS = ['METHOD_NONE', 'METHOD_TOKEN', 'METHOD_OIDC', 'METHOD_KUBERNETES', 'METHOD_GITHUB', 'METHOD_JWT', 'METHOD_CLOUD'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** An authentication (today: an API client token). The token itself is never kept. */
export interface Authentication {
  id: string;
  method: AuthMethod;
  /** base64url(sha256(client token)). */
  hashedToken: string;
  metadata: Record<string, string>;
  expiresAt: Micros | null;
  createdAt: Micros;
  updatedAt: Micros;
}
