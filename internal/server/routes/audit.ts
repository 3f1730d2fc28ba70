import type { FastifyInstance } from 'fastify';
import { parseDuration } from '../../config';
import { AUDIT_ACTIONS, AUDIT_TYPES, DEFAULT_NAMESPACE, invalidField, type AuditQuery, type Clock } from '../../core';
import { auditEventToJson, auditPageToken, auditPageTokenId, Fields, namespaceOf, type AuditEventListJson, type OperationName } from '../../wire';
import { operation, type CallRequest } from '../route-table';
import type { FlagSources } from '../sources';

/** Events per page unless `limit` asks for fewer or more (at most MAX_LIMIT). */
export const DEFAULT_AUDIT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** A query value that may be given several times or comma-separated (`type=flag,rule` or `type=flag&type=rule`). */
function listOf(query: unknown, name: string): string[] {
  const raw = (query as Record<string, unknown> | null)?.[name];
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return values.flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

function oneOf<T extends string>(query: unknown, name: string, allowed: readonly T[]): T[] | undefined {
  const values = listOf(query, name);
  for (const v of values) if (!(allowed as readonly string[]).includes(v)) throw invalidField(name, `"${v}" is not one of ${allowed.join(', ')}`);
  return values.length > 0 ? (values as T[]) : undefined;
}

/** An RFC 3339 instant, or a Go duration meaning that long ago (`24h`), as epoch µs. */
function instantOrAgo(query: Fields, name: string, clock: Clock): number | undefined {
  const text = query.str(name);
  if (text === '') return undefined;
  const ago = /^[0-9.]+[a-zµ]+/i.test(text) ? parseDuration(text) : null;
  if (ago !== null) return clock.nowMicros() - ago * 1000;
  return query.instant(name) ?? undefined;
}

/** The audit query a request's parameters ask for, one field at a time, each refused by name. */
export function auditQueryOf(request: CallRequest, namespace: string | null, clock: Clock): AuditQuery {
  const query = Fields.query(request.query);
  // Flipt's lists cap a large limit rather than refuse it.
  const limit = Math.min(query.int32('limit'), MAX_LIMIT);
  if (limit < 0) throw invalidField('limit', 'must not be negative');
  const token = query.str('pageToken');
  const before = token === '' ? undefined : (auditPageTokenId(token) ?? undefined);
  if (token !== '' && before === undefined) throw invalidField('pageToken', 'is not a page token of this list');
  const key = query.str('key');
  const actor = query.str('actor');
  return {
    namespace,
    types: oneOf(request.query, 'type', AUDIT_TYPES),
    actions: oneOf(request.query, 'action', AUDIT_ACTIONS),
    ...(key !== '' && { key }),
    ...(actor !== '' && { actor }),
    since: instantOrAgo(query, 'since', clock),
    until: instantOrAgo(query, 'until', clock),
    before,
    limit: limit === 0 ? DEFAULT_AUDIT_LIMIT : limit,
  };
}

/**
 * The audit trail: `GET /api/v1/namespaces/{ns}/audit/events` and, for every namespace,
 * `GET /api/v1/audit/events` (refused to namespace-scoped tokens by the gate). Newest first;
 * `type`, `action`, `key`, `actor`, `since`, `until` filter; `limit` and `pageToken` page. The
 * request's flag source answers: the database's trail, or a Git environment's commits.
 */
export function auditRoutes(app: FastifyInstance, sources: FlagSources, clock: Clock): void {
  const list = (name: OperationName, namespaced: boolean) =>
    operation(app, name, async (request, spec): Promise<AuditEventListJson> => {
      const ns = namespaced ? (namespaceOf(spec.namespace, request) ?? DEFAULT_NAMESPACE) : null;
      const query = auditQueryOf(request, ns, clock);
      const source = sources.of(request.headers);
      const events = await source.audit({ ...query, limit: query.limit + 1 });
      const page = events.slice(0, query.limit);
      return { events: page.map(auditEventToJson), nextPageToken: events.length > query.limit ? auditPageToken(page[page.length - 1].id) : '' };
    });
  list('ListAuditEvents', true);
  list('ListAllAuditEvents', false);
}
