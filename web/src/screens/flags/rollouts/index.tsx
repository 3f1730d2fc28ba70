import { useEffect, useRef, useState } from 'preact/hooks';
import { useQuery } from '../../../api/hooks';
import { segmentKeysOf } from '../../../api/rules';
import { rollouts as api } from '../../../api/rollouts';
import { segments as segmentsApi } from '../../../api/segments';
import type { Flag, Rollout, Segment } from '../../../api/types';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { Empty, LoadError, Loading } from '../../../components/states';
import { useToast } from '../../../components/toast';
import { useSession } from '../../../session/session';
import { DragHandle, MoveButtons, useReorder } from '../rules/reorder';
import { SegmentList } from '../rules/segment-picker';
import { RolloutEditor } from './editor';

export interface RolloutsSectionProps {
  ns: string;
  flag: Flag;
  onChanged?: () => void;
}

const NONE: Rollout[] = [];

/**
 * A boolean flag's rollouts, in rank order (Flipt's rollouts tab): thresholds and segments with
 * the value each serves, create / edit / delete, reordering by drag-and-drop or the keyboard
 * (`PUT …/rollouts/order` with every id), and the flag's own value as the final "otherwise".
 */
export function RolloutsSection({ ns, flag, onChanged }: RolloutsSectionProps) {
  const { readOnly } = useSession();
  const toast = useToast();
  const query = useQuery(() => api.list(ns, flag.key), [ns, flag.key]);
  const segments = useQuery(() => segmentsApi.list(ns), [ns]);
  const [editing, setEditing] = useState<string | null>(null);
  const [doomed, setDoomed] = useState<{ rollout: Rollout; position: number } | null>(null);
  const section = useRef<HTMLElement>(null);
  const returnFocus = useRef<{ selector: string; until?: unknown } | null>(null);
  const list = query.data ?? NONE;
  const changed = () => {
    query.reload();
    onChanged?.();
  };
  const reorder = useReorder(list, (r) => r.id, (ids) => api.order(ns, flag.key, ids), changed, 'Rollout');
  const canReorder = !readOnly && editing === null && list.length > 1;

  useEffect(() => {
    const back = returnFocus.current;
    if (editing !== null || !back) return;
    const target = section.current?.querySelector<HTMLElement>(back.selector);
    // An item just created appears with the reload: wait for new data, else fall back to "New …".
    if (!target && back.until !== undefined && query.data === back.until) return;
    (target ?? section.current?.querySelector<HTMLElement>('[data-action="new-rollout"]'))?.focus();
    returnFocus.current = null;
  });

  const editButton = (id: string) => `[data-sortable-id="${CSS.escape(id)}"] [data-action="edit"]`;
  const open = (id: string, from: string) => {
    returnFocus.current = { selector: from };
    // Segments may have been added since the page opened (another tab, the CLI).
    segments.reload();
    setEditing(id);
  };
  const editor = (existing: Rollout | undefined, position: number) => (
    <RolloutEditor
      ns={ns}
      flag={flag}
      segments={segments.data}
      segmentsError={segments.error}
      retrySegments={segments.reload}
      existing={existing}
      position={position}
      onSaved={(rollout, created) => {
        toast.success(created ? 'Rollout created' : 'Rollout saved');
        returnFocus.current = { selector: editButton(rollout.id), until: created ? query.data : undefined };
        setEditing(null);
        changed();
      }}
      onCancel={() => setEditing(null)}
    />
  );

  let body;
  if (query.loading && !query.data) body = <Loading label="Loading rollouts…" />;
  else if (query.error && !query.data) body = <LoadError error={query.error} retry={query.reload} />;
  else if (list.length === 0 && editing !== 'new')
    body = (
      <Empty title="No rollouts yet.">
        <p>Every evaluation gets the flag's own value until a rollout matches.</p>
      </Empty>
    );
  else
    body = (
      <ol class={reorder.busy ? 'sortable rollouts-list sortable-saving' : 'sortable rollouts-list'} ref={reorder.listRef} aria-label="Rollouts, in evaluation order">
        {reorder.items.map((rollout, i) =>
          editing === rollout.id ? (
            <li key={rollout.id} class="sortable-item editing" data-sortable-id={rollout.id}>
              {editor(rollout, i + 1)}
            </li>
          ) : (
            <li key={rollout.id} class={`sortable-item rule-card ${reorder.dragClass(rollout.id)}`} {...reorder.itemProps(rollout.id, canReorder)}>
              {canReorder && <DragHandle />}
              <span class="rule-rank" title={`Rank ${i + 1}`}>
                {i + 1}
              </span>
              <RolloutSummary ns={ns} rollout={rollout} segments={segments.data} />
              {!readOnly && (
                <div class="rule-actions">
                  {canReorder && <MoveButtons label={`rollout ${i + 1}`} index={i} count={reorder.items.length} busy={reorder.busy} onMove={(d) => reorder.move(rollout.id, d)} />}
                  <button type="button" class="button button-small" data-action="edit" aria-label={`Edit rollout ${i + 1}`} disabled={editing !== null} onClick={() => open(rollout.id, editButton(rollout.id))}>
                    Edit
                  </button>
                  <button type="button" class="button button-small button-danger-quiet" aria-label={`Delete rollout ${i + 1}`} disabled={editing !== null} onClick={() => setDoomed({ rollout, position: i + 1 })}>
                    Delete
                  </button>
                </div>
              )}
            </li>
          ),
        )}
      </ol>
    );

  return (
    <section class="flag-section ranked rollouts" ref={section} aria-labelledby="rollouts-title">
      <header class="ranked-header">
        <div>
          <h2 id="rollouts-title">Rollouts</h2>
          <p class="muted ranked-hint">Evaluated top to bottom, even while the flag is disabled: the first rollout that matches decides the value. Drag a rollout, or use its arrows, to change the order.</p>
        </div>
        {!readOnly && (
          <button type="button" class="button button-primary" data-action="new-rollout" disabled={editing !== null} onClick={() => open('new', '[data-action="new-rollout"]')}>
            New rollout
          </button>
        )}
      </header>
      {reorder.error && (
        <div class="form-error sortable-error" role="alert">
          <span>{reorder.error}</span>
          <button type="button" class="button button-small button-quiet" onClick={reorder.dismissError}>
            Dismiss
          </button>
        </div>
      )}
      {body}
      {reorder.busy && <p class="muted sortable-status">Saving the new order…</p>}
      <p class="visually-hidden" aria-live="polite">
        {reorder.announcement}
      </p>
      {editing === 'new' && <div class="rule-new">{editor(undefined, list.length + 1)}</div>}
      <p class="rule-otherwise">
        <span class="rule-keyword">Otherwise</span>
        <span>
          serve <BoolValue value={flag.enabled} /> <span class="muted">(the flag's default value: it is {flag.enabled ? 'enabled' : 'disabled'})</span>
        </span>
      </p>
      <ConfirmDialog
        open={doomed !== null}
        title="Delete rollout?"
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await api.delete(ns, flag.key, doomed!.rollout.id);
          toast.success(`Rollout ${doomed!.position} deleted`);
          changed();
        }}
        onClose={() => setDoomed(null)}
      >
        {doomed && <p>Rollout {doomed.position} will be deleted; the rollouts after it move up.</p>}
      </ConfirmDialog>
    </section>
  );
}

function BoolValue({ value }: { value: boolean }) {
  return <span class={value ? 'bool-value bool-true' : 'bool-value bool-false'}>{String(value)}</span>;
}

/** "Threshold 30% of entities / Serve true" or "If a OR b matches / Serve false", with the description under it. */
function RolloutSummary({ ns, rollout, segments }: { ns: string; rollout: Rollout; segments?: Segment[] }) {
  const { threshold, segment } = rollout;
  const keys = segment ? segmentKeysOf(segment) : [];
  return (
    <div class="rule-body">
      {threshold ? (
        <p class="rule-line">
          <span class="rule-keyword">Threshold</span>
          <span>
            <strong>{threshold.percentage}%</strong> of entities
          </span>
        </p>
      ) : segment ? (
        <p class="rule-line">
          <span class="rule-keyword">If</span>
          <SegmentList ns={ns} keys={keys} operator={segment.segmentOperator} segments={segments} />
          <span class="muted">{keys.length > 1 ? (segment.segmentOperator === 'AND_SEGMENT_OPERATOR' ? 'all match' : 'any matches') : 'matches'}</span>
        </p>
      ) : (
        <p class="rule-line muted">Unknown rollout kind ({rollout.type})</p>
      )}
      {(threshold || segment) && (
        <p class="rule-line">
          <span class="rule-keyword">Serve</span>
          <BoolValue value={(threshold ?? segment)!.value} />
        </p>
      )}
      {rollout.description && <p class="rule-description muted">{rollout.description}</p>}
    </div>
  );
}
