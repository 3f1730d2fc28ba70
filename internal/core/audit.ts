/**
 * The audit trail's domain: who changed what, when. An event is written in the same transaction
 * as the change it records (storage/sql/audit-log.ts), so there is never one without the other.
 * No Node APIs: the dashboard reads these types.
 */

/**
 * What an event is about: Flipt's audit types, plus an import and a migration from Flipt as a
 * whole, a Git environment's commit, and a request refused for want of a role (`authorization`).
 */
export const AUDIT_TYPES = ['namespace', 'flag', 'variant', 'segment', 'constraint', 'rule', 'distribution', 'rollout', 'token', 'import', 'migration', 'commit', 'authorization'] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

/**
 * Flipt's actions, plus `reordered` (rules, rollouts: Flipt never audited it), `expired` (tokens)
 * and `denied` (authorization: a request its caller's role does not allow).
 */
export const AUDIT_ACTIONS = ['created', 'updated', 'deleted', 'reordered', 'expired', 'denied'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Which door a change came through. `system`: the service itself (token cleanup); `git`: a commit. */
export const AUDIT_SOURCES = ['api', 'grpc', 'dashboard', 'cli', 'system', 'git'] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

/** Flipt's `metadata.actor`, plus the token's id. */
export interface AuditActor {
  /** How the actor authenticated: `token`, `none` (authentication off), `local` (the CLI on the database), `system`, `git`. */
  authentication: string;
  /** The token's id (or the signed-in user's subject). */
  id?: string;
  name?: string;
  email?: string;
  ip?: string;
}

/**
 * An event that is a write of its own, no change beside it (`AuditStore.recordAuditEvent`): a
 * denied request. `key`: what it is filed under (the operation refused); `payload`: its details.
 */
export interface StandaloneAuditEvent {
  type: AuditType;
  action: AuditAction;
  namespace: string;
  key: string;
  payload: unknown;
}

/** Who is writing, and how: handed to the store with each write (`Store.as`). */
export interface AuditOrigin {
  actor: AuditActor;
  source: AuditSource;
  /** The request's id (HTTP `request-id` / Fastify's id, a gRPC call's), when there is one. */
  requestId?: string | null;
}

/** The origin of writes nobody identified (tests, tools): recorded as the system's. */
export const SYSTEM_ORIGIN: AuditOrigin = Object.freeze({ actor: Object.freeze({ authentication: 'system' }), source: 'system', requestId: null });

/**
 * One recorded change. `payload` and `before` are the domain objects (`Flag`, `Rule`, …; an
 * import's counts) as JSON values; the wire encodes them in Flipt's shape (wire/audit.ts).
 */
export interface AuditEvent {
  /** UUIDv7: time-ordered, and the delivery id that lets receivers drop duplicates. */
  id: string;
  type: AuditType;
  action: AuditAction;
  /** '' for what belongs to no namespace (an unscoped token). */
  namespace: string;
  /**
   * The key the change is filed under: the flag's for a flag and its variants, rules,
   * distributions and rollouts; the segment's for a segment and its constraints; the
   * namespace's; the token's id; '' for an import or a migration.
   */
  key: string;
  /** The object's own id where it has one (variant, constraint, rule, distribution, rollout, token). */
  objectId: string | null;
  actor: AuditActor;
  source: AuditSource;
  requestId: string | null;
  /** The object after the change (null after a delete). */
  payload: unknown;
  /** The object before the change (null before a create). */
  before: unknown;
  /** Epoch microseconds. */
  timestamp: number;
}

/** What `listAuditEvents` filters by; every field optional, all of them together. */
export interface AuditQuery {
  /** Null: every namespace (and events of none). */
  namespace: string | null;
  types?: AuditType[];
  actions?: AuditAction[];
  key?: string;
  /** Matches the actor's token id or name. */
  actor?: string;
  /** Epoch microseconds, inclusive. */
  since?: number;
  /** Epoch microseconds, exclusive. */
  until?: number;
  /** Newest first; events strictly older than this id's (a page token's). */
  before?: string;
  limit: number;
}

/**
 * Whether an `audit.events` pattern list (Flipt's `noun:verb`, `*` for either) takes an event.
 * Flipt's nouns are singular types (`flag`, `segment`, …); `*:*` takes everything.
 */
export function auditEventSelected(patterns: readonly string[], type: string, action: string): boolean {
  for (const pattern of patterns) {
    const [noun, verb] = pattern.split(':');
    if ((noun === '*' || noun === type) && (verb === '*' || verb === action)) return true;
  }
  return false;
}
