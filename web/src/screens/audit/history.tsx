import { useMemo } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { FLAG_AUDIT_TYPES, SEGMENT_AUDIT_TYPES } from '../../api/audit';
import { AuditList } from '../../components/audit-events';
import { paths } from '../../routes/paths';
import { touchesFlag, useLiveChanges } from '../../session/live';
import { useAuditEvents } from './use-audit-events';

/** Events per page of a History: the latest few, more on request. */
export const HISTORY_PAGE = 10;

/**
 * A flag's or a segment's History: the audit events filed under its key, of its own types (a
 * flag and its variants, rules, distributions and rollouts; a segment and its constraints — a
 * flag and a segment may share a key). Live: read again on a change to the flag (its key in the
 * namespace's event stream), or on any change for a segment (the stream names flags only).
 */
export function HistorySection({
  ns,
  kind,
  resourceKey,
  highlight,
  idLabels,
  sectionClass,
}: {
  ns: string;
  kind: 'flag' | 'segment';
  resourceKey: string;
  highlight?: string;
  idLabels?: ReadonlyMap<string, string>;
  /** The page's own section frame (flag-section, segment-section; its header is `<sectionClass>-header`). */
  sectionClass: string;
}) {
  const filter = useMemo(() => ({ key: resourceKey, types: kind === 'flag' ? FLAG_AUDIT_TYPES : SEGMENT_AUDIT_TYPES }), [kind, resourceKey]);
  const history = useAuditEvents(ns, filter, HISTORY_PAGE);
  useLiveChanges((change) => {
    if (kind === 'segment' || touchesFlag(resourceKey)(change)) history.refresh();
  });
  return (
    <section class={`${sectionClass} audit-history`} aria-labelledby="history-title" data-testid="history">
      <header class={`${sectionClass}-header`}>
        <h2 id="history-title">History</h2>
        <Link href={paths.audit(ns, { key: resourceKey, type: filter.types.join(',') })} class="button button-small">
          In the audit trail
        </Link>
      </header>
      <AuditList
        ns={ns}
        {...history}
        retry={history.reload}
        emptyTitle={`No changes to this ${kind} recorded yet.`}
        highlight={highlight}
        idLabels={idLabels}
      />
    </section>
  );
}
