// core's modules, not its index (its clock imports node:crypto): the dashboard bundles this room.
import type { AuthMethod, ComparisonType, FlagType, MatchType, RolloutType, SegmentOperator } from '../core/types';
import type { EvaluationReason } from '../evaluation/types';

export type { AuthMethod, ComparisonType, FlagType, MatchType, RolloutType, SegmentOperator } from '../core/types';
export type { EvaluationReason } from '../evaluation/types';

/**
 * Flipt v1's JSON, named: what the server writes (protojson with EmitDefaultValues — camelCase,
 * enums by name, timestamps as RFC 3339 text) and what clients send. The server encodes into
 * these types, the HTTP client and the dashboard read them, and request bodies are typed here
 * for whoever builds one.
 */

/** RFC 3339 UTC text with 0, 3 or 6 fractional digits (a protobuf Timestamp). */
export type TimestampJson = string;

export interface NamespaceJson {
  key: string;
  name: string;
  description: string;
  /** The `default` namespace is protected: it cannot be deleted. */
  protected: boolean;
  createdAt: TimestampJson;
  updatedAt: TimestampJson;
}

export interface VariantJson {
  id: string;
  flagKey: string;
  key: string;
  name: string;
  description: string;
  createdAt: TimestampJson;
  updatedAt: TimestampJson;
  /** Compact JSON text, or '' when there is none. */
  attachment: string;
  namespaceKey: string;
}

export interface FlagJson {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  createdAt: TimestampJson;
  updatedAt: TimestampJson;
  variants: VariantJson[];
  namespaceKey: string;
  type: FlagType;
  /** Left out when the flag has none. */
  defaultVariant?: VariantJson | null;
  /** Left out of a single flag without any; `{}` in lists (Flipt's SQL backend). */
  metadata?: Record<string, unknown>;
}

export interface ConstraintJson {
  id: string;
  segmentKey: string;
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  createdAt: TimestampJson;
  updatedAt: TimestampJson;
  namespaceKey: string;
  description: string;
}

export interface SegmentJson {
  key: string;
  name: string;
  description: string;
  createdAt: TimestampJson;
  updatedAt: TimestampJson;
  constraints: ConstraintJson[];
  matchType: MatchType;
  namespaceKey: string;
}

export interface DistributionJson {
  id: string;
  ruleId: string;
  variantId: string;
  /** A proto float: the shortest text that reads back as the same float32. */
  rollout: number;
  createdAt: TimestampJson;
  updatedAt: TimestampJson;
}

/** One segment is written in `segmentKey` (and `segmentKeys` is []); two or more in `segmentKeys`. */
export interface SegmentKeysJson {
  segmentKey: string;
  segmentKeys: string[];
}

export interface RuleJson extends SegmentKeysJson {
  id: string;
  flagKey: string;
  distributions: DistributionJson[];
  rank: number;
  createdAt: TimestampJson;
  updatedAt: TimestampJson;
  namespaceKey: string;
  segmentOperator: SegmentOperator;
}

export interface RolloutSegmentJson extends SegmentKeysJson {
  value: boolean;
  segmentOperator: SegmentOperator;
}

export interface RolloutThresholdJson {
  percentage: number;
  value: boolean;
}

export interface RolloutJson {
  id: string;
  namespaceKey: string;
  flagKey: string;
  type: RolloutType;
  rank: number;
  description: string;
  createdAt: TimestampJson;
  updatedAt: TimestampJson;
  /** Exactly one of `segment` and `threshold`. */
  segment?: RolloutSegmentJson;
  threshold?: RolloutThresholdJson;
}

/** What every management list carries beside its items. */
export interface PageJson {
  nextPageToken: string;
  totalCount: number;
}

export type NamespaceListJson = PageJson & { namespaces: NamespaceJson[] };
export type FlagListJson = PageJson & { flags: FlagJson[] };
export type SegmentListJson = PageJson & { segments: SegmentJson[] };
export type RuleListJson = PageJson & { rules: RuleJson[] };
/** Flipt names the rollout list's array `rules`. */
export type RolloutListJson = PageJson & { rules: RolloutJson[] };

/** Flipt's `Authentication` message; `expiresAt` left out when the token never expires. */
export interface AuthenticationJson {
  id: string;
  method: AuthMethod;
  expiresAt?: TimestampJson | null;
  createdAt: TimestampJson;
  updatedAt: TimestampJson;
  metadata: Record<string, string>;
}

/** The token list pages by token, without a total. */
export interface AuthenticationListJson {
  authentications: AuthenticationJson[];
  nextPageToken: string;
}

export interface CreatedTokenJson {
  clientToken: string;
  authentication: AuthenticationJson;
}

export interface AuthMethodsJson {
  /** `metadata`: OIDC's `providers.<name>.authorize_url|callback_url`, GitHub's `authorize_url|callback_url`, as Flipt gives them. */
  methods: { method: string; enabled: boolean; sessionCompatible: boolean; metadata?: Record<string, unknown> }[];
}

/** grpc-gateway's error body: the gRPC code, the message, no details. */
export interface ErrorJson {
  code: number;
  message: string;
  details: unknown[];
}

/** `GET /meta/info` (Go's encoding/json: empty optional fields left out). */
export interface MetaInfoJson {
  version: string;
  commit?: string;
  buildDate?: string;
  updateAvailable: boolean;
  isRelease: boolean;
  os: string;
  arch: string;
  authentication: { required: boolean };
  storage: { type: string; readOnly?: boolean };
  analytics: Record<string, never>;
  ui: { theme: string };
}

// ---- Requests ---------------------------------------------------------------------------

/** Flipt's context: a map of strings. */
export type ContextJson = Record<string, string>;

/** `POST /evaluate/v1/variant`, `/boolean`, and each item of a batch; the legacy `/api/v1/evaluate`. */
export interface EvaluationRequestJson {
  namespaceKey: string;
  flagKey: string;
  entityId: string;
  context: ContextJson;
  /** '' or left out: the server makes one up. */
  requestId?: string;
  reference?: string;
}

export interface NamespaceCreateJson {
  key: string;
  name: string;
  description: string;
}

export interface FlagCreateJson {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  type: FlagType;
  /** Left out, the flag has none. */
  metadata?: Record<string, unknown>;
}

/**
 * Flipt's PUT replaces: `enabled` and `defaultVariantId` are always written ('' clears the
 * default variant). `metadata` is the exception: left out it stays, `{}` clears it.
 */
export interface FlagUpdateJson {
  name: string;
  description: string;
  enabled: boolean;
  defaultVariantId: string;
  metadata?: Record<string, unknown>;
}

export interface VariantRequestJson {
  key: string;
  name: string;
  description: string;
  /** JSON text, '' for none. */
  attachment: string;
}

export interface SegmentCreateJson {
  key: string;
  name: string;
  description: string;
  matchType: MatchType;
}

export interface ConstraintRequestJson {
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  description: string;
}

/** One segment as `segmentKey` (what every Flipt v1 server accepts), several as `segmentKeys`. */
export type SegmentChoiceJson = { segmentKey: string } | { segmentKeys: string[] };

export type RuleRequestJson = SegmentChoiceJson & { segmentOperator: SegmentOperator; rank?: number };

export interface DistributionRequestJson {
  variantId: string;
  rollout: number;
}

export interface RolloutRequestJson {
  description: string;
  rank?: number;
  segment?: SegmentChoiceJson & { segmentOperator: SegmentOperator; value: boolean };
  threshold?: RolloutThresholdJson;
}

export interface TokenCreateJson {
  name: string;
  description: string;
  /** RFC 3339; '' or left out for a token that never expires. */
  expiresAt?: string;
  /** The one namespace the token may use; '' for all. */
  namespaceKey: string;
  metadata?: Record<string, string>;
}

// ---- Evaluation responses ---------------------------------------------------------------

/** Fields every /evaluate/v1 response carries. */
export interface TimingJson {
  requestId: string;
  /** The server's own time for the evaluation, in milliseconds (a float). */
  requestDurationMillis: number;
  timestamp: TimestampJson;
}

export interface VariantEvaluationJson extends TimingJson {
  match: boolean;
  segmentKeys: readonly string[];
  reason: EvaluationReason;
  variantKey: string;
  /** JSON text, '' when none. */
  variantAttachment: string;
  flagKey: string;
}

export interface BooleanEvaluationJson extends TimingJson {
  enabled: boolean;
  reason: EvaluationReason;
  flagKey: string;
  segmentKeys: readonly string[];
}

export type BatchItemJson =
  | { type: 'VARIANT_EVALUATION_RESPONSE_TYPE'; variantResponse: VariantEvaluationJson }
  | { type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE'; booleanResponse: BooleanEvaluationJson }
  | { type: 'ERROR_EVALUATION_RESPONSE_TYPE'; errorResponse: { flagKey: string; namespaceKey: string; reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' } };

export interface BatchEvaluationJson {
  requestId: string;
  responses: BatchItemJson[];
  requestDurationMillis: number;
}

/** The deprecated `/api/v1/evaluate` answer (Flipt's management service, legacy names). */
export interface LegacyEvaluationJson {
  requestId: string;
  entityId: string;
  requestContext: ContextJson;
  match: boolean;
  flagKey: string;
  segmentKey: string;
  timestamp: TimestampJson;
  value: string;
  requestDurationMillis: number;
  attachment: string;
  reason: EvaluationReason;
  namespaceKey: string;
  segmentKeys: readonly string[];
}

export interface LegacyBatchEvaluationJson {
  requestId: string;
  responses: LegacyEvaluationJson[];
  requestDurationMillis: number;
}

// ---- Reading --------------------------------------------------------------------------

/**
 * What a reader accepts for `T`: protojson may leave out any zero value (Flipt's `?pretty`, an
 * older server), so every field may be missing or null, all the way down.
 */
export type Received<T> = T extends string | number | boolean
  ? T
  : T extends readonly (infer E)[]
    ? readonly Received<E>[]
    : T extends object
      ? { [K in keyof T]?: Received<T[K]> | null }
      : T;
