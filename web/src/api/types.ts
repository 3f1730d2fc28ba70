/**
 * The management API's objects as Flipt v1's JSON gives them (one place, so every screen and
 * the evaluation console read the same shapes). Times are RFC 3339 strings.
 */

export type FlagType = 'VARIANT_FLAG_TYPE' | 'BOOLEAN_FLAG_TYPE';
export type MatchType = 'ALL_MATCH_TYPE' | 'ANY_MATCH_TYPE';
export type SegmentOperator = 'OR_SEGMENT_OPERATOR' | 'AND_SEGMENT_OPERATOR';
export type ComparisonType =
  | 'STRING_COMPARISON_TYPE'
  | 'NUMBER_COMPARISON_TYPE'
  | 'BOOLEAN_COMPARISON_TYPE'
  | 'DATETIME_COMPARISON_TYPE'
  | 'ENTITY_ID_COMPARISON_TYPE';
export type RolloutType = 'SEGMENT_ROLLOUT_TYPE' | 'THRESHOLD_ROLLOUT_TYPE';

export interface Variant {
  id: string;
  flagKey: string;
  namespaceKey: string;
  key: string;
  name: string;
  description: string;
  /** JSON text ('' when none). */
  attachment: string;
  createdAt: string;
  updatedAt: string;
}

export interface Flag {
  key: string;
  namespaceKey: string;
  name: string;
  description: string;
  enabled: boolean;
  type: FlagType;
  variants: Variant[];
  defaultVariant?: Variant | null;
  metadata?: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface Constraint {
  id: string;
  segmentKey: string;
  namespaceKey: string;
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  description: string;
  createdAt: string;
  updatedAt: string;
}

export interface Segment {
  key: string;
  namespaceKey: string;
  name: string;
  description: string;
  matchType: MatchType;
  constraints: Constraint[];
  createdAt: string;
  updatedAt: string;
}

export interface Distribution {
  id: string;
  ruleId: string;
  variantId: string;
  rollout: number;
  createdAt: string;
  updatedAt: string;
}

export interface Rule {
  id: string;
  flagKey: string;
  namespaceKey: string;
  segmentKey: string;
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
  rank: number;
  distributions: Distribution[];
  createdAt: string;
  updatedAt: string;
}

export interface Rollout {
  id: string;
  flagKey: string;
  namespaceKey: string;
  type: RolloutType;
  rank: number;
  description: string;
  segment?: { segmentKey: string; segmentKeys: string[]; segmentOperator: SegmentOperator; value: boolean };
  threshold?: { percentage: number; value: boolean };
  createdAt: string;
  updatedAt: string;
}

/** A list page as every management list returns it (the items under a resource-named key). */
export interface Page {
  nextPageToken: string;
  totalCount: number;
}
