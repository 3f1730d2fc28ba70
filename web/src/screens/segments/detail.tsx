import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { ApiError } from '../../api/errors';
import { useQuery } from '../../api/hooks';
import { matchTypeLabel, segments as api } from '../../api/segments';
import { describeUse, segmentUsage } from '../../api/usage';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Page } from '../../components/page';
import { LoadError, Loading } from '../../components/states';
import { useToast } from '../../components/toast';
import { formatDate } from '../../lib/format';
import { andList } from '../../lib/words';
import { paths, useRouteParam } from '../../routes/paths';
import { useLiveChanges } from '../../session/live';
import { useCurrentNamespace } from '../../session/namespaces';
import { useWritable } from '../../session/access';
import { HistorySection } from '../audit/history';
import { ConstraintsSection } from './constraints';
import { CopySegmentDialog } from './copy';
import { SegmentForm } from './form';
import { UsageSection } from './usage';

/**
 * One segment: its details (name, match type, description) to edit, its constraints, the flags
 * that use it, and copy to another namespace and delete in the page's actions. Deleting a segment
 * that a rule or rollout uses is refused by the server; the dialog then names those flags.
 * Live: read again whenever the namespace moves (the event stream names flags, not segments);
 * the details form keeps unsaved edits and offers to reload; a segment deleted elsewhere says so.
 * Last, its History: the audit trail of the segment and its constraints (screens/audit/history.tsx).
 */
export function SegmentDetailScreen() {
  const ns = useCurrentNamespace();
  const key = useRouteParam('segmentKey');
  // No changes offered when the role (or a read-only instance) forbids them: session/access.ts.
  const readOnly = !useWritable(ns).allowed;
  const toast = useToast();
  const [, navigate] = useLocation();
  const query = useQuery(() => api.get(ns, key), [ns, key]);
  const usage = useQuery(() => segmentUsage(ns, key), [ns, key]);
  useLiveChanges(() => {
    query.refresh();
    usage.refresh();
  });
  const gone = query.error instanceof ApiError && query.error.status === 404 && query.data !== undefined;
  const [deleting, setDeleting] = useState(false);
  const [copying, setCopying] = useState(false);
  const segment = query.data;

  const actions =
    segment && !readOnly ? (
      <>
        <button type="button" class="button" onClick={() => setCopying(true)}>
          Copy to namespace
        </button>
        <button type="button" class="button button-danger-quiet" onClick={() => setDeleting(true)} aria-label={`Delete segment ${segment.key}`}>
          Delete
        </button>
      </>
    ) : undefined;

  return (
    <Page title={segment ? segment.name || segment.key : 'Segment'} actions={actions}>
      <p class="segment-crumbs">
        <Link href={paths.segments(ns)}>Segments</Link> <span aria-hidden="true">/</span> <span class="mono">{key}</span>
      </p>
      {query.loading && !segment ? (
        <Loading label="Loading segment…" />
      ) : query.error && !segment ? (
        <LoadError error={query.error} retry={query.reload} />
      ) : segment ? (
        <div class="segment-detail">
          {gone && (
            <div class="banner banner-changed" role="alert" data-testid="segment-gone">
              <strong>This segment was deleted elsewhere.</strong> What is shown here is its last version.
            </div>
          )}
          <section class="segment-section" aria-labelledby="details-title">
            <header class="segment-section-header">
              <h2 id="details-title">Details</h2>
              <p class="muted segment-section-note">
                Match type {matchTypeLabel(segment.matchType)} · created {formatDate(segment.createdAt)} · updated {formatDate(segment.updatedAt)}
              </p>
            </header>
            {/* The form follows the segment as it changes (a save here, or elsewhere), keeping unsaved edits. */}
            <SegmentForm existing={segment} onSaved={query.reload} />
          </section>
          <ConstraintsSection ns={ns} segment={segment} readOnly={readOnly} reload={query.reload} />
          <UsageSection ns={ns} usage={usage} />
          <HistorySection ns={ns} kind="segment" resourceKey={segment.key} sectionClass="segment-section" />
        </div>
      ) : null}

      {segment && (
        <>
          <ConfirmDialog
            open={deleting}
            title="Delete segment?"
            confirmLabel="Delete"
            danger
            onConfirm={async () => {
              await deleteOrSayWhere(ns, segment.key, usage.reload);
              toast.success(`Segment ${segment.key} deleted`);
              navigate(paths.segments(ns));
            }}
            onClose={() => setDeleting(false)}
          >
            <p>
              Segment <strong class="mono">{segment.key}</strong> and its {segment.constraints.length === 1 ? 'constraint' : `${segment.constraints.length} constraints`} will be
              deleted. A segment that rules or rollouts still use cannot be deleted. This cannot be undone.
            </p>
          </ConfirmDialog>
          <CopySegmentDialog open={copying} ns={ns} segment={segment} onClose={() => setCopying(false)} />
        </>
      )}
    </Page>
  );
}

/**
 * Deletes the segment; when the server refuses because rules or rollouts use it, the error says
 * which (read now: the page's list may be older than the refusal), and the page's list reloads.
 */
async function deleteOrSayWhere(ns: string, key: string, reloadUsage: () => void): Promise<void> {
  try {
    await api.delete(ns, key);
  } catch (err) {
    if (!(err instanceof ApiError) || err.kind !== 'in-use') throw err;
    reloadUsage();
    const uses = await segmentUsage(ns, key).catch(() => null);
    // Unknown (the reads failed) or already gone elsewhere: the reworded refusal says enough.
    if (!uses || uses.length === 0) throw err;
    throw new Error(`Segment ${key} is used by ${andList(uses.map(describeUse))}. It can be deleted once no rule or rollout uses it.`);
  }
}
