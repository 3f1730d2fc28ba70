import type { Kysely, Transaction } from 'kysely';
import {
  COMPARISON_TYPES,
  FLAG_TYPES,
  MATCH_TYPES,
  ROLLOUT_TYPES,
  SEGMENT_OPERATORS,
  type Constraint,
  type Distribution,
  type Namespace,
  type Rollout,
  type Segment,
  type Variant,
} from '../../core';

/** Row shapes as Kysely sees them. Numbers may arrive as strings from some drivers (int8). */
type Int = number | string;

export interface NamespacesTable {
  key: string;
  name: string;
  description: string;
  protected: Int;
  revision: Int;
  created_at: Int;
  updated_at: Int;
}

export interface FlagsTable {
  namespace_key: string;
  key: string;
  name: string;
  description: string;
  enabled: Int;
  type: Int;
  default_variant_id: string | null;
  metadata: string | null;
  created_at: Int;
  updated_at: Int;
}

export interface VariantsTable {
  id: string;
  namespace_key: string;
  flag_key: string;
  key: string;
  name: string;
  description: string;
  attachment: string;
  created_at: Int;
  updated_at: Int;
}

export interface SegmentsTable {
  namespace_key: string;
  key: string;
  name: string;
  description: string;
  match_type: Int;
  created_at: Int;
  updated_at: Int;
}

export interface ConstraintsTable {
  id: string;
  namespace_key: string;
  segment_key: string;
  type: Int;
  property: string;
  operator: string;
  value: string;
  description: string;
  created_at: Int;
  updated_at: Int;
}

export interface RulesTable {
  id: string;
  namespace_key: string;
  flag_key: string;
  rank: Int;
  segment_operator: Int;
  created_at: Int;
  updated_at: Int;
}

export interface SegmentRefsTable {
  namespace_key: string;
  segment_key: string;
  position: Int;
}

export interface RuleSegmentsTable extends SegmentRefsTable {
  rule_id: string;
}

export interface RolloutSegmentsTable extends SegmentRefsTable {
  rollout_id: string;
}

export interface DistributionsTable {
  id: string;
  rule_id: string;
  variant_id: string;
  rollout: number;
  created_at: Int;
  updated_at: Int;
}

export interface RolloutsTable {
  id: string;
  namespace_key: string;
  flag_key: string;
  type: Int;
  rank: Int;
  description: string;
  threshold_percentage: number;
  threshold_value: Int;
  segment_operator: Int;
  segment_value: Int;
  created_at: Int;
  updated_at: Int;
}

export interface AuthenticationsTable {
  id: string;
  method: Int;
  hashed_client_token: string;
  metadata: string;
  expires_at: Int | null;
  created_at: Int;
  updated_at: Int;
}

/** A committed write's extent (queries/change-log.ts). */
export interface ChangeLogTable {
  namespace_key: string;
  namespace_created_at: Int;
  revision_from: Int;
  revision_to: Int;
  /** JSON arrays of keys. */
  flags: string;
  segments: string;
  whole: Int;
}

export interface AuditEventsTable {
  id: string;
  namespace_key: string;
  type: string;
  action: string;
  resource_key: string;
  object_id: string | null;
  /** JSON: Flipt's `metadata.actor`. */
  actor: string;
  actor_id: string;
  actor_name: string;
  source: string;
  request_id: string | null;
  /** JSON: the object after the change, and before it. */
  payload: string | null;
  previous: string | null;
  created_at: Int;
}

export interface AuditOutboxTable {
  sink: string;
  event_id: string;
  attempts: Int;
  next_attempt_at: Int;
  last_error: string | null;
}

export interface AuditLeasesTable {
  name: string;
  holder: string;
  expires_at: Int;
}

export interface Database {
  audit_events: AuditEventsTable;
  audit_outbox: AuditOutboxTable;
  audit_leases: AuditLeasesTable;
  authentications: AuthenticationsTable;
  change_log: ChangeLogTable;
  namespaces: NamespacesTable;
  flags: FlagsTable;
  variants: VariantsTable;
  segments: SegmentsTable;
  constraints: ConstraintsTable;
  rules: RulesTable;
  rule_segments: RuleSegmentsTable;
  distributions: DistributionsTable;
  rollouts: RolloutsTable;
  rollout_segments: RolloutSegmentsTable;
}

/** Either the database or an open transaction: store functions accept both. */
export type Db = Kysely<Database> | Transaction<Database>;

// Enums are stored as their proto numbers, which is their index in these lists.
const indexOf = <T extends string>(list: readonly T[], value: T): number => list.indexOf(value);
const nameOf = <T extends string>(list: readonly T[], n: Int): T => list[Number(n)] ?? list[0];

export const enums = {
  flagType: { toDb: (v: (typeof FLAG_TYPES)[number]) => indexOf(FLAG_TYPES, v), fromDb: (n: Int) => nameOf(FLAG_TYPES, n) },
  matchType: { toDb: (v: (typeof MATCH_TYPES)[number]) => indexOf(MATCH_TYPES, v), fromDb: (n: Int) => nameOf(MATCH_TYPES, n) },
  comparison: {
    toDb: (v: (typeof COMPARISON_TYPES)[number]) => indexOf(COMPARISON_TYPES, v),
    fromDb: (n: Int) => nameOf(COMPARISON_TYPES, n),
  },
  segmentOperator: {
    toDb: (v: (typeof SEGMENT_OPERATORS)[number]) => indexOf(SEGMENT_OPERATORS, v),
    fromDb: (n: Int) => nameOf(SEGMENT_OPERATORS, n),
  },
  rolloutType: {
    toDb: (v: (typeof ROLLOUT_TYPES)[number]) => indexOf(ROLLOUT_TYPES, v),
    fromDb: (n: Int) => nameOf(ROLLOUT_TYPES, n),
  },
};

export const bool = (v: Int): boolean => Number(v) !== 0;
export const int = (v: Int): number => Number(v);

export function toNamespace(r: NamespacesTable): Namespace {
  return {
    key: r.key,
    name: r.name,
    description: r.description,
    protected: bool(r.protected),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

export function toVariant(r: VariantsTable): Variant {
  return {
    id: r.id,
    namespaceKey: r.namespace_key,
    flagKey: r.flag_key,
    key: r.key,
    name: r.name,
    description: r.description,
    attachment: r.attachment,
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

export function toConstraint(r: ConstraintsTable): Constraint {
  return {
    id: r.id,
    namespaceKey: r.namespace_key,
    segmentKey: r.segment_key,
    type: enums.comparison.fromDb(r.type),
    property: r.property,
    operator: r.operator,
    value: r.value,
    description: r.description,
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

export function toSegment(r: SegmentsTable, constraints: Constraint[]): Segment {
  return {
    namespaceKey: r.namespace_key,
    key: r.key,
    name: r.name,
    description: r.description,
    matchType: enums.matchType.fromDb(r.match_type),
    constraints,
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

export function toDistribution(r: DistributionsTable): Distribution {
  return {
    id: r.id,
    ruleId: r.rule_id,
    variantId: r.variant_id,
    rollout: Number(r.rollout),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

export function toRollout(r: RolloutsTable, segmentKeys: string[]): Rollout {
  const type = enums.rolloutType.fromDb(r.type);
  return {
    id: r.id,
    namespaceKey: r.namespace_key,
    flagKey: r.flag_key,
    type,
    rank: int(r.rank),
    description: r.description,
    threshold:
      type === 'THRESHOLD_ROLLOUT_TYPE' ? { percentage: Number(r.threshold_percentage), value: bool(r.threshold_value) } : null,
    segment:
      type === 'SEGMENT_ROLLOUT_TYPE'
        ? { segmentKeys, segmentOperator: enums.segmentOperator.fromDb(r.segment_operator), value: bool(r.segment_value) }
        : null,
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}
