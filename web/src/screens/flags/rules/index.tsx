import { useEffect, useRef, useState } from 'preact/hooks';
import { useQuery } from '../../../api/hooks';
import { rules as api, segmentKeysOf } from '../../../api/rules';
import { segments as segmentsApi } from '../../../api/segments';
import type { Flag, Rule, Segment } from '../../../api/types';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { Empty, LoadError, Loading } from '../../../components/states';
import { useToast } from '../../../components/toast';
import { useSession } from '../../../session/session';
import { RuleEditor } from './editor';
import { DragHandle, MoveButtons, useReorder } from './reorder';
import { SegmentList } from './segment-picker';

export interface RulesSectionProps {
  ns: string;
  flag: Flag;
  onChanged?: () => void;
}

const NONE: Rule[] = [];

/**
 * A variant flag's rules, in rank order (Flipt's rules tab): what each matches and serves,
 * create / edit / delete, and reordering by drag-and-drop or the keyboard (one
 * `PUT …/rules/order` with every id; our ranks are 1..n). The flag's default closes the list.
 */
export function RulesSection({ ns, flag, onChanged }: RulesSectionProps) {
  const { readOnly } = useSession();
  const toast = useToast();
  const query = useQuery(() => api.list(ns, flag.key), [ns, flag.key]);
  const segments = useQuery(() => segmentsApi.list(ns), [ns]);
  const [editing, setEditing] = useState<string | null>(null);
  const [doomed, setDoomed] = useState<{ rule: Rule; position: number } | null>(null);
  const section = useRef<HTMLElement>(null);
  /** Where the keyboard goes back to when the editor closes. */
  const returnFocus = useRef<{ selector: string; until?: unknown } | null>(null);
  const list = query.data ?? NONE;
  const changed = () => {
    query.reload();
    onChanged?.();
  };
  const reorder = useReorder(list, (r) => r.id, (ids) => api.order(ns, flag.key, ids), changed, 'Rule');
  const canReorder = !readOnly && editing === null && list.length > 1;

  useEffect(() => {
    const back = returnFocus.current;
    if (editing !== null || !back) return;
    const target = section.current?.querySelector<HTMLElement>(back.selector);
    // An item just created appears with the reload: wait for new data, else fall back to "New …".
    if (!target && back.until !== undefined && query.data === back.until) return;
    (target ?? section.current?.querySelector<HTMLElement>('[data-action="new-rule"]'))?.focus();
    returnFocus.current = null;
  });

  const open = (id: string, from: string) => {
    returnFocus.current = { selector: from };
    // Segments may have been added since the page opened (another tab, the CLI).
    segments.reload();
    setEditing(id);
  };
  const close = () => setEditing(null);

  const editor = (ruleId?: string) => (
    <RuleEditor
      ns={ns}
      flag={flag}
      segments={segments.data}
      segmentsError={segments.error}
      retrySegments={segments.reload}
      rules={list}
      ruleId={ruleId}
      onSaved={(rule, created) => {
        toast.success(created ? 'Rule created' : 'Rule saved');
        if (created) returnFocus.current = { selector: `[data-sortable-id="${CSS.escape(rule.id)}"] [data-action="edit"]`, until: query.data };
        close();
        changed();
      }}
      onFailed={changed}
      onCancel={close}
    />
  );

  let body;
  if (query.loading && !query.data) body = <Loading label="Loading rules…" />;
  else if (query.error && !query.data) body = <LoadError error={query.error} retry={query.reload} />;
  else if (list.length === 0 && editing !== 'new')
    body = (
      <Empty title="No rules yet.">
        <p>Every evaluation gets the flag's default until a rule matches.</p>
      </Empty>
    );
  else
    body = (
      <ol class={reorder.busy ? 'sortable rules-list sortable-saving' : 'sortable rules-list'} ref={reorder.listRef} aria-label="Rules, in evaluation order">
        {reorder.items.map((rule, i) =>
          editing === rule.id ? (
            <li key={rule.id} class="sortable-item editing" data-sortable-id={rule.id}>
              {editor(rule.id)}
            </li>
          ) : (
            <li key={rule.id} class={`sortable-item rule-card ${reorder.dragClass(rule.id)}`} {...reorder.itemProps(rule.id, canReorder)}>
              {canReorder && <DragHandle />}
              <span class="rule-rank" title={`Rank ${i + 1}`}>
                {i + 1}
              </span>
              <RuleSummary ns={ns} flag={flag} rule={rule} segments={segments.data} />
              {!readOnly && (
                <div class="rule-actions">
                  {canReorder && <MoveButtons label={`rule ${i + 1}`} index={i} count={reorder.items.length} busy={reorder.busy} onMove={(d) => reorder.move(rule.id, d)} />}
                  <button type="button" class="button button-small" data-action="edit" aria-label={`Edit rule ${i + 1}`} disabled={editing !== null} onClick={() => open(rule.id, `[data-sortable-id="${CSS.escape(rule.id)}"] [data-action="edit"]`)}>
                    Edit
                  </button>
                  <button type="button" class="button button-small button-danger-quiet" aria-label={`Delete rule ${i + 1}`} disabled={editing !== null} onClick={() => setDoomed({ rule, position: i + 1 })}>
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
    <section class="flag-section ranked rules" ref={section} aria-labelledby="rules-title">
      <header class="ranked-header">
        <div>
          <h2 id="rules-title">Rules</h2>
          <p class="muted ranked-hint">Evaluated top to bottom: the first rule whose segments match decides what is served. Drag a rule, or use its arrows, to change the order.</p>
        </div>
        {!readOnly && (
          <button type="button" class="button button-primary" data-action="new-rule" disabled={editing !== null} onClick={() => open('new', '[data-action="new-rule"]')}>
            New rule
          </button>
        )}
      </header>
      {!flag.enabled && <p class="rule-note">This flag is disabled: evaluations return its default without looking at the rules.</p>}
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
      {editing === 'new' && <div class="rule-new">{editor()}</div>}
      <p class="rule-otherwise">
        <span class="rule-keyword">Otherwise</span>
        {flag.defaultVariant ? (
          <span>
            serve the default variant <span class="mono">{flag.defaultVariant.key}</span>
          </span>
        ) : (
          <span class="muted">no variant (the flag has no default variant)</span>
        )}
      </p>
      <ConfirmDialog
        open={doomed !== null}
        title="Delete rule?"
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await api.delete(ns, flag.key, doomed!.rule.id);
          toast.success(`Rule ${doomed!.position} deleted`);
          changed();
        }}
        onClose={() => setDoomed(null)}
      >
        {doomed && (
          <p>
            Rule {doomed.position} (segments <span class="mono">{segmentKeysOf(doomed.rule).join(', ')}</span>) and its distributions will be deleted; the rules after it move up.
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}

/** "If a AND b match, serve x (single variant) / x 50% · y 50%". */
function RuleSummary({ ns, flag, rule, segments }: { ns: string; flag: Flag; rule: Rule; segments?: Segment[] }) {
  const keys = segmentKeysOf(rule);
  const variantKey = (id: string) => flag.variants.find((v) => v.id === id)?.key;
  const total = Math.round(rule.distributions.reduce((sum, d) => sum + d.rollout, 0) * 100) / 100;
  const single = rule.distributions.length === 1 && rule.distributions[0].rollout === 100 ? rule.distributions[0] : null;
  return (
    <div class="rule-body">
      <p class="rule-line">
        <span class="rule-keyword">If</span>
        <SegmentList ns={ns} keys={keys} operator={rule.segmentOperator} segments={segments} />
        <span class="muted">{keys.length > 1 ? (rule.segmentOperator === 'AND_SEGMENT_OPERATOR' ? 'all match' : 'any matches') : 'matches'}</span>
      </p>
      <div class="rule-line">
        <span class="rule-keyword">Serve</span>
        {rule.distributions.length === 0 ? (
          <span class="muted">no variant (the flag's default)</span>
        ) : single ? (
          <span>
            <span class="mono">{variantKey(single.variantId) ?? '(deleted variant)'}</span> <span class="rule-tag">single variant</span>
          </span>
        ) : (
          <ul class="dist-list" aria-label="Distribution">
            {rule.distributions.map((d) => (
              <li key={d.id}>
                <span class="mono dist-key">{variantKey(d.variantId) ?? '(deleted variant)'}</span>
                <progress class="split-bar" max={100} value={d.rollout} aria-hidden="true" />
                <span class="dist-pct">{d.rollout}%</span>
              </li>
            ))}
            {total < 100 && (
              <li class="muted">
                <span class="dist-key">no variant</span>
                <span />
                <span class="dist-pct">{Math.round((100 - total) * 100) / 100}%</span>
              </li>
            )}
          </ul>
        )}
      </div>
    </div>
  );
}
