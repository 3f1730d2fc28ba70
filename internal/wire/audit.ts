import type { AuditActor, AuditEvent, AuditSource } from '../core/audit';
import type { Authentication, Constraint, Distribution, Flag, Namespace, Rollout, Rule, Segment, Variant } from '../core/types';
import { authenticationToJson, constraintToJson, distributionToJson, flagToJson, namespaceToJson, rolloutToJson, ruleToJson, segmentToJson, timestamp, variantToJson } from './encode';
import type { TimestampJson } from './types';

/**
 * An audit event as JSON: Flipt's audit event (`version`, `type`, `action`, `metadata.actor`,
 * `payload`, `timestamp`, `status`) — what Flipt's webhook receivers parse — plus what Flipt
 * lacks: the delivery `id`, the object `before` the change, the `namespace`, the `key` it is
 * filed under, the `requestId` and the `source`. Objects are in the API's own JSON.
 */
export interface AuditEventJson {
  id: string;
  version: '0.2';
  type: string;
  action: string;
  status: 'success';
  metadata: { actor: AuditActor };
  payload: unknown;
  before: unknown;
  timestamp: TimestampJson;
  namespace: string;
  key: string;
  objectId: string | null;
  requestId: string | null;
  source: AuditSource;
}

export interface AuditEventListJson {
  events: AuditEventJson[];
  nextPageToken: string;
}

/** Flipt's event version: the shape of `metadata.actor` and `timestamp` at the top. */
export const AUDIT_EVENT_VERSION = '0.2';

/* Objects recorded as the domain's (they carry `createdAt`) are written as the API writes them; others (an import's counts, a reorder's ids, an imported flag's input) as they are. */
const ENCODERS: Partial<Record<string, (value: never) => unknown>> = {
  namespace: (n: Namespace) => namespaceToJson(n),
  flag: (f: Flag) => flagToJson(f),
  variant: (v: Variant) => variantToJson(v),
  segment: (s: Segment) => segmentToJson(s),
  constraint: (c: Constraint) => constraintToJson(c),
  rule: (r: Rule) => ruleToJson(r),
  distribution: (d: Distribution) => distributionToJson(d),
  rollout: (r: Rollout) => rolloutToJson(r),
  token: (a: Omit<Authentication, 'hashedToken'>) => authenticationToJson({ ...a, hashedToken: '' }),
};

function objectJson(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const encode = ENCODERS[type];
  const domain = typeof value === 'object' && typeof (value as { createdAt?: unknown }).createdAt === 'number';
  return encode && domain ? encode(value as never) : value;
}

export function auditEventToJson(e: AuditEvent): AuditEventJson {
  return {
    id: e.id,
    version: AUDIT_EVENT_VERSION,
    type: e.type,
    action: e.action,
    status: 'success',
    metadata: { actor: e.actor },
    payload: objectJson(e.type, e.payload),
    before: objectJson(e.type, e.before),
    timestamp: timestamp(e.timestamp),
    namespace: e.namespace,
    key: e.key,
    objectId: e.objectId,
    requestId: e.requestId,
    source: e.source,
  };
}

/** The page token after `id`: the next page holds the events older than it. */
export function auditPageToken(id: string): string {
  return btoa(JSON.stringify({ before: id }));
}

/** The id a page token names; null for one that is not ours. */
export function auditPageTokenId(token: string): string | null {
  try {
    const parsed = JSON.parse(atob(token)) as { before?: unknown };
    return typeof parsed.before === 'string' && /^[0-9a-f-]{36}$/.test(parsed.before) ? parsed.before : null;
  } catch {
    return null;
  }
}
