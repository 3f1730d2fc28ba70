import type { AuditEventJson } from '../../../internal/wire/audit';

/**
 * How a live refresh's new first page of audit events joins the pages shown (History, the Audit
 * screen: screens/audit/use-audit-events.ts). Pure, and free of Preact, so the unit tests
 * type-check it under Node's types.
 */
export interface ShownPages {
  events: AuditEventJson[];
  /** The token of the page after the last one shown ('' when that was the last). */
  pageToken: string;
}

/**
 * `fresh` (the first page read again) over `shown`: the events not shown yet go on top and the
 * pages below stay, with their token. When every event of a full fresh page is new, more may
 * have arrived than a page holds: the list starts again from the fresh page, so it never shows
 * a gap; likewise when nothing was shown.
 */
export function mergeNewest(shown: ShownPages, fresh: { events: AuditEventJson[]; nextPageToken: string }, pageSize: number): ShownPages {
  const known = new Set(shown.events.map((e) => e.id));
  const added = fresh.events.filter((e) => !known.has(e.id));
  if (shown.events.length === 0 || (added.length === fresh.events.length && fresh.events.length >= pageSize)) return { events: fresh.events, pageToken: fresh.nextPageToken };
  return { events: [...added, ...shown.events], pageToken: shown.pageToken };
}
