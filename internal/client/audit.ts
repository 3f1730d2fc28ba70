import type { AuditEventListJson } from '../wire';

/**
 * A server's audit trail (`GET /api/v1/namespaces/{ns}/audit/events`, or `GET
 * /api/v1/audit/events` for every namespace): one page per call, newest first, as wire's
 * `AuditEventListJson`. For `pennon audit list --address`.
 */
export interface AuditRequest {
  /** null: every namespace (refused to a namespace-scoped token). */
  namespace: string | null;
  types?: readonly string[];
  actions?: readonly string[];
  key?: string;
  /** A token's name or id. */
  actor?: string;
  /** RFC 3339, or a Go duration meaning that long ago (`24h`): as the route reads them. */
  since?: string;
  until?: string;
  /** Events in this page (the server caps it at 1000). */
  limit?: number;
  pageToken?: string;
}

/** The route and query string for `request`. */
export function auditEventsPath(request: AuditRequest): string {
  const base = request.namespace === null ? '/api/v1/audit/events' : `/api/v1/namespaces/${encodeURIComponent(request.namespace)}/audit/events`;
  const params = new URLSearchParams();
  const set = (name: string, value: string | number | undefined) => {
    if (value !== undefined && value !== '') params.set(name, String(value));
  };
  set('type', request.types?.join(','));
  set('action', request.actions?.join(','));
  set('key', request.key);
  set('actor', request.actor);
  set('since', request.since);
  set('until', request.until);
  set('limit', request.limit);
  set('pageToken', request.pageToken);
  const query = params.toString();
  return query === '' ? base : `${base}?${query}`;
}

/** One page of events. `api`: an HttpApi. */
export async function fetchAuditEvents(api: { get<T>(path: string): Promise<T> }, request: AuditRequest): Promise<AuditEventListJson> {
  const page = await api.get<Partial<AuditEventListJson> | undefined>(auditEventsPath(request));
  return { events: page?.events ?? [], nextPageToken: page?.nextPageToken ?? '' };
}
