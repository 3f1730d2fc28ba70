import type { AuditEventJson, AuditEventListJson } from '../../../internal/wire/audit';
import { http, path } from './http';

/**
 * The audit trail (`GET /api/v1/namespaces/{ns}/audit/events`, internal/server/routes/audit.ts):
 * newest first, filtered on the server, a page at a time (`nextPageToken` names the last event
 * seen, so a page never shifts when newer events arrive meanwhile).
 */
export type AuditEvent = AuditEventJson;
export type AuditPage = AuditEventListJson;

/** The types a flag's History shows: the flag and what hangs off it, all filed under the flag's key. */
export const FLAG_AUDIT_TYPES = ['flag', 'variant', 'rule', 'distribution', 'rollout'] as const;
/** The types a segment's History shows: the segment and its constraints, filed under the segment's key. */
export const SEGMENT_AUDIT_TYPES = ['segment', 'constraint'] as const;

export interface AuditFilter {
  /** Any of these types (none: every type). */
  types?: readonly string[];
  action?: string;
  key?: string;
  /** A token's name or id. */
  actor?: string;
}

export const audit = {
  list: (ns: string, filter: AuditFilter, page: { limit: number; pageToken?: string }) =>
    http.get<AuditPage>(path`/api/v1/namespaces/${ns}/audit/events`, {
      type: filter.types && filter.types.length > 0 ? filter.types.join(',') : undefined,
      action: filter.action,
      key: filter.key,
      actor: filter.actor,
      limit: page.limit,
      pageToken: page.pageToken,
    }),

  /** The newest change to flag `key` (any of its parts), or null when the trail has none. */
  lastFlagChange: async (ns: string, key: string): Promise<AuditEvent | null> => {
    const page = await audit.list(ns, { key, types: FLAG_AUDIT_TYPES }, { limit: 1 });
    return page.events[0] ?? null;
  },
};
