import type { ComparisonType, FlagType, MatchType, SegmentOperator } from '../core';

/**
 * Requests as the wire layer decodes them: Flipt's proto messages, with protobuf's zero values
 * for anything absent ("" / 0 / false / []), so validation can follow Flipt's order exactly.
 */

export interface ListRequest {
  limit: number;
  offset: number;
  pageToken: string;
}

export interface NamespaceRequest {
  key: string;
  name: string;
  description: string;
}

export interface CreateFlagRequest {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  type: FlagType;
  /** undefined when the field was absent. */
  metadata: Record<string, unknown> | undefined;
}

export interface UpdateFlagRequest {
  name: string;
  description: string;
  enabled: boolean;
  defaultVariantId: string;
  metadata: Record<string, unknown> | undefined;
}

export interface VariantRequest {
  key: string;
  name: string;
  description: string;
  attachment: string;
}

export interface SegmentRequest {
  name: string;
  description: string;
  matchType: MatchType;
}

export interface CreateSegmentRequest extends SegmentRequest {
  key: string;
}

export interface ConstraintRequest {
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  description: string;
}

export interface RuleRequest {
  segmentKey: string;
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
}

export interface CreateRuleRequest extends RuleRequest {
  rank: number;
}

export interface DistributionRequest {
  variantId: string;
  rollout: number;
}

export interface RolloutSegmentRequest {
  segmentKey: string;
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
  value: boolean;
}

export interface RolloutRequest {
  description: string;
  segment: RolloutSegmentRequest | null;
  threshold: { percentage: number; value: boolean } | null;
}

export interface CreateRolloutRequest extends RolloutRequest {
  rank: number;
}
