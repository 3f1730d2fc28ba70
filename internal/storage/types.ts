import type {
  AuditEvent,
  AuditOrigin,
  AuditQuery,
  StandaloneAuditEvent,
  Authentication,
  AuthMethod,
  NamespaceData,
  ComparisonType,
  Constraint,
  Distribution,
  Flag,
  FlagType,
  MatchType,
  Namespace,
  Page,
  Rollout,
  RolloutSegment,
  RolloutThreshold,
  Rule,
  Segment,
  SegmentOperator,
  Variant,
} from '../core';

/**
 * Storage ports. Reads and writes are separate interfaces so that a read-only instance and
 * the Git-backed store can implement only the reading half. Inputs arrive validated and
 * normalised by internal/management; stores hold data rules only (existence, uniqueness,
 * ranks, cascades), each write in one transaction that also bumps the namespace revision.
 */

/** offset/limit after the page token has been decoded; limit 0 means "all". */
export interface ListParams {
  limit: number;
  offset: number;
}

export interface NamespaceInput {
  key: string;
  name: string;
  description: string;
}

export interface FlagCreateInput {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  type: FlagType;
  metadata: Record<string, unknown> | null;
}

export interface FlagUpdateInput {
  name: string;
  description: string;
  enabled: boolean;
  /** "" clears the default variant. */
  defaultVariantId: string;
  /** undefined: leave unchanged; null: clear; object: replace. */
  metadata: Record<string, unknown> | null | undefined;
}

export interface VariantInput {
  key: string;
  name: string;
  description: string;
  attachment: string;
}

export interface SegmentInput {
  name: string;
  description: string;
  matchType: MatchType;
}

export interface ConstraintInput {
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  description: string;
}

export interface RuleInput {
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
}

export interface DistributionInput {
  variantId: string;
  rollout: number;
}

export interface RolloutInput {
  description: string;
  segment: RolloutSegment | null;
  threshold: RolloutThreshold | null;
}

/**
 * New objects for one namespace, written in bulk (imports). Variants and defaults are referred
 * to by position. Flags and segments must not exist yet; referenced segments must.
 */
export interface NamespaceBatch {
  flags: {
    input: FlagCreateInput;
    variants: VariantInput[];
    defaultVariant: number | null;
    rules: { input: RuleInput; distributions: { variant: number; rollout: number }[] }[];
    rollouts: RolloutInput[];
  }[];
  segments: { key: string; input: SegmentInput; constraints: ConstraintInput[] }[];
}

export interface ReadStore {
  getNamespace(key: string): Promise<Namespace>;
  listNamespaces(params: ListParams): Promise<Page<Namespace>>;
  getFlag(ns: string, key: string): Promise<Flag>;
  listFlags(ns: string, params: ListParams): Promise<Page<Flag>>;
  getSegment(ns: string, key: string): Promise<Segment>;
  listSegments(ns: string, params: ListParams): Promise<Page<Segment>>;
  getRule(ns: string, flagKey: string, id: string): Promise<Rule>;
  listRules(ns: string, flagKey: string, params: ListParams): Promise<Page<Rule>>;
  getRollout(ns: string, flagKey: string, id: string): Promise<Rollout>;
  listRollouts(ns: string, flagKey: string, params: ListParams): Promise<Page<Rollout>>;
  /** A token that changes on every write in the namespace; null when it does not exist. */
  getRevision(ns: string): Promise<string | null>;
}

export interface WriteStore {
  createNamespace(input: NamespaceInput): Promise<Namespace>;
  updateNamespace(input: NamespaceInput): Promise<Namespace>;
  deleteNamespace(key: string, force: boolean): Promise<void>;

  createFlag(ns: string, input: FlagCreateInput): Promise<Flag>;
  updateFlag(ns: string, key: string, input: FlagUpdateInput): Promise<Flag>;
  deleteFlag(ns: string, key: string): Promise<void>;

  createVariant(ns: string, flagKey: string, input: VariantInput): Promise<Variant>;
  updateVariant(ns: string, flagKey: string, id: string, input: VariantInput): Promise<Variant>;
  deleteVariant(ns: string, flagKey: string, id: string): Promise<void>;

  createSegment(ns: string, key: string, input: SegmentInput): Promise<Segment>;
  updateSegment(ns: string, key: string, input: SegmentInput): Promise<Segment>;
  deleteSegment(ns: string, key: string): Promise<void>;

  createConstraint(ns: string, segmentKey: string, input: ConstraintInput): Promise<Constraint>;
  updateConstraint(ns: string, segmentKey: string, id: string, input: ConstraintInput): Promise<Constraint>;
  deleteConstraint(ns: string, segmentKey: string, id: string): Promise<void>;

  /** Inserts at `rank` (clamped to 1..n+1), shifting later rules down: ranks stay dense. */
  createRule(ns: string, flagKey: string, rank: number, input: RuleInput): Promise<Rule>;
  updateRule(ns: string, flagKey: string, id: string, input: RuleInput): Promise<Rule>;
  deleteRule(ns: string, flagKey: string, id: string): Promise<void>;
  orderRules(ns: string, flagKey: string, ruleIds: string[]): Promise<void>;

  createDistribution(ns: string, flagKey: string, ruleId: string, input: DistributionInput): Promise<Distribution>;
  updateDistribution(ns: string, flagKey: string, ruleId: string, id: string, input: DistributionInput): Promise<Distribution>;
  deleteDistribution(ns: string, flagKey: string, ruleId: string, id: string, variantId: string): Promise<void>;

  /** A used rank is refused (Flipt: "rank number: N already exists"); ranks past n+1 become n+1. */
  createRollout(ns: string, flagKey: string, rank: number, input: RolloutInput): Promise<Rollout>;
  updateRollout(ns: string, flagKey: string, id: string, input: RolloutInput): Promise<Rollout>;
  deleteRollout(ns: string, flagKey: string, id: string): Promise<void>;
  orderRollouts(ns: string, flagKey: string, rolloutIds: string[]): Promise<void>;

  /** Writes many new objects with a few multi-row statements (one transaction, one revision). */
  createBatch(ns: string, batch: NamespaceBatch): Promise<void>;
}

/** What evaluation reads: whole namespaces, parts of them, and a cheap way to notice a change. */
export interface EvaluationSource {
  /** The namespace with everything evaluation needs, read consistently; null when it does not exist. */
  loadNamespace(ns: string): Promise<NamespaceData | null>;
  /**
   * The same, in pages of whole flags (in creation order, each page with the segments its flags
   * use) handed to `consume` one at a time and not kept, so that a large namespace's rebuild
   * never holds all of its read model; resolves with the revision read (null: no namespace).
   * Optional: a source without it is read whole.
   */
  loadNamespacePages?(ns: string, consume: (page: NamespaceData) => Promise<void>): Promise<string | null>;
  /**
   * Only some flags (and the flags using some segments), with the segments they use, read
   * consistently. `flags` lists every flag considered: one that is not in the result was
   * deleted. Null when a partial read would not pay (too many flags) or the namespace is gone.
   */
  loadFlags(ns: string, flagKeys: string[], segmentKeys: string[]): Promise<PartialNamespaceData | null>;
  /** Every namespace's current revision, in one round trip. */
  listRevisions(): Promise<Map<string, string>>;
  /**
   * The committed changes after `revision`, oldest first (a database's change log): how a
   * snapshot catches up with writes made elsewhere by reloading only what they touched. Null
   * when the log cannot continue from that revision. Optional: without it, such a write
   * rebuilds the namespace.
   */
  changesSince?(ns: string, revision: string): Promise<Change[] | null>;
}

export interface PartialNamespaceData extends NamespaceData {
  /** Every flag key the read covered (present in `flags` or deleted). */
  considered: string[];
}

/** A committed write: what it touched, and the namespace revision before and after it. */
export interface Change {
  ns: string;
  /** null when the namespace was created by this write. */
  before: string | null;
  /** null when the namespace was deleted by this write. */
  after: string | null;
  flags: string[];
  segments: string[];
  /** The change may touch anything in the namespace. */
  whole: boolean;
}

/** Called after a write commits. */
export type ChangeListener = (change: Change) => void;

export interface AuthenticationInput {
  method: AuthMethod;
  hashedToken: string;
  metadata: Record<string, string>;
  expiresAt: number | null;
}

/** Authentications live in the database whatever stores the flags (Git included). */
export interface AuthStore {
  createAuthentication(input: AuthenticationInput): Promise<Authentication>;
  getAuthentication(id: string): Promise<Authentication | null>;
  getAuthenticationByHash(hashedToken: string): Promise<Authentication | null>;
  /** Ordered by creation; `method` null lists every method. */
  listAuthentications(method: AuthMethod | null, limit: number, offset: number): Promise<{ items: Authentication[]; more: boolean }>;
  countAuthentications(method: AuthMethod): Promise<number>;
  deleteAuthentication(id: string): Promise<void>;
  expireAuthentication(id: string, at: number): Promise<void>;
  /**
   * Deletes at most `limit` authentications of `method` that expired before `before` (one short
   * transaction); returns how many. Safe to run concurrently.
   */
  deleteExpiredAuthentications(method: AuthMethod, before: number, limit: number): Promise<number>;
}

/** An event waiting in the outbox for one sink. */
export interface AuditDelivery {
  event: AuditEvent;
  /** Attempts made so far. */
  attempts: number;
  /** Epoch µs; 0 for an event never tried. */
  nextAttemptAt: number;
}

export interface AuditBacklog {
  sink: string;
  count: number;
  /** When the oldest waiting event was written (epoch µs). */
  oldest: number | null;
}

/** The audit trail (in the database whatever stores the flags): its reads, retention and outbox. */
export interface AuditStore {
  /**
   * Records one event that stands alone — no change made with it (a denied request) — in a
   * transaction of its own, with its outbox rows, as the store's origin's (`Store.as`).
   */
  recordAuditEvent(event: StandaloneAuditEvent): Promise<void>;
  listAuditEvents(query: AuditQuery): Promise<AuditEvent[]>;
  getAuditEvents(ids: string[]): Promise<AuditEvent[]>;
  deleteAuditEventsBefore(before: number, limit: number): Promise<{ events: number; undelivered: number }>;
  acquireAuditLease(name: string, holder: string, now: number, until: number): Promise<boolean>;
  releaseAuditLease(name: string, holder: string): Promise<void>;
  pendingAuditDeliveries(sink: string, limit: number): Promise<AuditDelivery[]>;
  acknowledgeAuditDeliveries(sink: string, eventIds: string[]): Promise<void>;
  deferAuditDelivery(sink: string, eventId: string, attempts: number, nextAttemptAt: number, error: string): Promise<void>;
  auditBacklog(): Promise<AuditBacklog[]>;
}

export interface Store extends ReadStore, WriteStore, EvaluationSource, AuthStore, AuditStore {
  /**
   * The same store, its writes recorded in the audit trail as `origin`'s (who, through which
   * door, which request); without it, as the system's.
   */
  as(origin: AuditOrigin): Store;
  /** Subscribes to committed writes made through this store (this process); returns an unsubscribe. */
  onChange(listener: ChangeListener): () => void;
  /**
   * A write committed on another connection of this process (the import thread's): its
   * listeners hear it as they hear this store's own.
   */
  announce(change: Change): void;
  /**
   * Subscribes to audit events committed through this store (this process; an import thread's
   * too, through `announceAudited`): how many one transaction wrote. What wakes the audit
   * deliverer at once and counts the events written; returns an unsubscribe.
   */
  onAudited(listener: (events: number) => void): () => void;
  /** Audit events committed on another connection of this process (the import thread's): heard as this store's own. */
  announceAudited(events: number): void;
  /** Runs `fn` in one transaction: all its writes land together or not at all. */
  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  /**
   * Runs `fn`'s reads on one state of the database (a read transaction at the dialect's snapshot
   * isolation), without the write transaction's locks: a long export holds no writer up.
   */
  readConsistently<T>(fn: (store: ReadStore) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
