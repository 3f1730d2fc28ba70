import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQuery } from '../../../api/hooks';
import { segments as segmentsApi } from '../../../api/segments';
import type { Flag, Segment } from '../../../api/types';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { Empty, LoadError, Loading } from '../../../components/states';
import { useToast } from '../../../components/toast';
import { useWritable } from '../../../session/access';
import { DragHandle, MoveButtons, useReorder } from '../rules/reorder';

/**
 * A ranked list on the flag page — a variant flag's rules, a boolean flag's rollouts — as one
 * section: the cards in rank order, create / edit / delete, reordering by drag-and-drop or the
 * keyboard (one `PUT …/order` with every id), and the flag's own answer as the final
 * "otherwise". Both behave alike on purpose (Flipt's rules and rollouts tabs do), so the
 * behaviour lives here once; what differs — the card, the editor, the wording — comes in props.
 * Every label, class and `data-action` is made from `noun`: the tests and the styles find them.
 */
/** What the flag page gives each of its ranked sections. */
export interface FlagSectionProps {
  ns: string;
  flag: Flag;
  /** Called after every change the section makes (the page reloads what it shows of the flag). */
  onChanged?: () => void;
  /** Moves when the flag changed elsewhere (live updates): the section reads its list again. */
  version?: number;
}

export interface RankedSectionProps<T extends { id: string }> extends FlagSectionProps {
  noun: 'rule' | 'rollout';
  api: {
    /** In rank order. */
    list: (ns: string, flag: string) => Promise<T[]>;
    order: (ns: string, flag: string, ids: string[]) => Promise<unknown>;
    delete: (ns: string, flag: string, id: string) => Promise<unknown>;
  };
  /** Under the title: how the list is evaluated. */
  hint: string;
  /** The empty state's sentence. */
  empty: string;
  /** Shown between the header and the list (e.g. "this flag is disabled"). */
  note?: ComponentChildren;
  /** After "Otherwise": what the flag answers when nothing matches. */
  otherwise: ComponentChildren;
  summary: (item: T, segments: Segment[] | undefined) => ComponentChildren;
  editor: (props: RankedEditorProps<T>) => ComponentChildren;
  /** The delete dialog's body. */
  deleteMessage: (item: T, position: number) => ComponentChildren;
}

/** What the section gives its editor: the item (none for a new one) and how to report back. */
export interface RankedEditorProps<T> {
  existing: T | undefined;
  /** The position it is shown at (1-based); a new item goes last. */
  position: number;
  /** The list as last loaded. */
  list: T[];
  segments: Segment[] | undefined;
  segmentsError: unknown;
  retrySegments: () => void;
  onSaved: (item: T, created: boolean) => void;
  /** A save failed part-way: reload what the server holds. */
  onFailed: () => void;
  onCancel: () => void;
}

/** One empty list for every render while loading, so `useReorder` sees no change. */
const NONE: never[] = [];

export function RankedSection<T extends { id: string }>(props: RankedSectionProps<T>) {
  const { ns, flag, onChanged, noun, api, version = 0 } = props;
  const plural = `${noun}s`;
  const Noun = noun[0].toUpperCase() + noun.slice(1);
  // No changes offered when the role (or a read-only instance) forbids them: session/access.ts.
  const readOnly = !useWritable(ns).allowed;
  const toast = useToast();
  const query = useQuery(() => api.list(ns, flag.key), [ns, flag.key]);
  const segments = useQuery(() => segmentsApi.list(ns), [ns]);
  const [editing, setEditing] = useState<string | null>(null);
  const [doomed, setDoomed] = useState<{ item: T; position: number } | null>(null);
  const section = useRef<HTMLElement>(null);
  /** Where the keyboard goes back to when the editor closes. */
  const returnFocus = useRef<{ selector: string; until?: unknown } | null>(null);
  const list = query.data ?? NONE;
  const changed = () => {
    query.reload();
    onChanged?.();
  };
  const reorder = useReorder(list, (r) => r.id, (ids) => api.order(ns, flag.key, ids), changed, Noun);
  // Changed elsewhere: read again, but not under an open editor (its item could vanish with its
  // user's input); then once it closes.
  const [staleSince, setStaleSince] = useState<number | null>(null);
  const seen = useRef(version);
  useEffect(() => {
    if (version === seen.current) return;
    seen.current = version;
    if (editing !== null || reorder.busy) setStaleSince(version);
    else {
      query.refresh();
      segments.refresh();
    }
  }, [version]);
  useEffect(() => {
    if (staleSince === null || editing !== null || reorder.busy) return;
    setStaleSince(null);
    query.refresh();
    segments.refresh();
  }, [staleSince, editing, reorder.busy]);
  const canReorder = !readOnly && editing === null && list.length > 1;
  const newButton = `[data-action="new-${noun}"]`;

  useEffect(() => {
    const back = returnFocus.current;
    if (editing !== null || !back) return;
    const target = section.current?.querySelector<HTMLElement>(back.selector);
    // An item just created appears with the reload: wait for new data, else fall back to "New …".
    if (!target && back.until !== undefined && query.data === back.until) return;
    (target ?? section.current?.querySelector<HTMLElement>(newButton))?.focus();
    returnFocus.current = null;
  });

  const editButton = (id: string) => `[data-sortable-id="${CSS.escape(id)}"] [data-action="edit"]`;
  const open = (id: string, from: string) => {
    returnFocus.current = { selector: from };
    // Segments may have been added since the page opened (another tab, the CLI).
    segments.reload();
    setEditing(id);
  };
  const close = () => setEditing(null);
  const editor = (existing: T | undefined, position: number) =>
    props.editor({
      existing,
      position,
      list,
      segments: segments.data,
      segmentsError: segments.error,
      retrySegments: segments.reload,
      onSaved: (item, created) => {
        toast.success(created ? `${Noun} created` : `${Noun} saved`);
        // An edited item's button is already where the keyboard returns (see `open`).
        if (created) returnFocus.current = { selector: editButton(item.id), until: query.data };
        close();
        changed();
      },
      onFailed: changed,
      onCancel: close,
    });

  let body;
  if (query.loading && !query.data) body = <Loading label={`Loading ${plural}…`} />;
  else if (query.error && !query.data) body = <LoadError error={query.error} retry={query.reload} />;
  else if (list.length === 0 && editing !== 'new')
    body = (
      <Empty title={`No ${plural} yet.`}>
        <p>{props.empty}</p>
      </Empty>
    );
  else
    body = (
      <ol class={reorder.busy ? `sortable ${plural}-list sortable-saving` : `sortable ${plural}-list`} ref={reorder.listRef} aria-label={`${Noun}s, in evaluation order`}>
        {reorder.items.map((item, i) =>
          editing === item.id ? (
            <li key={item.id} class="sortable-item editing" data-sortable-id={item.id}>
              {editor(item, i + 1)}
            </li>
          ) : (
            <li key={item.id} class={`sortable-item rule-card ${reorder.dragClass(item.id)}`} {...reorder.itemProps(item.id, canReorder)}>
              {canReorder && <DragHandle />}
              <span class="rule-rank" title={`Rank ${i + 1}`}>
                {i + 1}
              </span>
              {props.summary(item, segments.data)}
              {!readOnly && (
                <div class="rule-actions">
                  {canReorder && <MoveButtons label={`${noun} ${i + 1}`} index={i} count={reorder.items.length} busy={reorder.busy} onMove={(d) => reorder.move(item.id, d)} />}
                  <button type="button" class="button button-small" data-action="edit" aria-label={`Edit ${noun} ${i + 1}`} disabled={editing !== null} onClick={() => open(item.id, editButton(item.id))}>
                    Edit
                  </button>
                  <button type="button" class="button button-small button-danger-quiet" aria-label={`Delete ${noun} ${i + 1}`} disabled={editing !== null} onClick={() => setDoomed({ item, position: i + 1 })}>
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
    <section class={`flag-section ranked ${plural}`} ref={section} aria-labelledby={`${plural}-title`}>
      <header class="ranked-header">
        <div>
          <h2 id={`${plural}-title`}>{Noun}s</h2>
          <p class="muted ranked-hint">{props.hint}</p>
        </div>
        {!readOnly && (
          <button type="button" class="button button-primary" data-action={`new-${noun}`} disabled={editing !== null} onClick={() => open('new', newButton)}>
            New {noun}
          </button>
        )}
      </header>
      {props.note}
      {staleSince !== null && (
        <p class="banner banner-changed" role="status" data-testid={`${plural}-changed`}>
          The {plural} changed elsewhere: they are read again once you close the editor.
        </p>
      )}
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
        {props.otherwise}
      </p>
      <ConfirmDialog
        open={doomed !== null}
        title={`Delete ${noun}?`}
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await api.delete(ns, flag.key, doomed!.item.id);
          toast.success(`${Noun} ${doomed!.position} deleted`);
          changed();
        }}
        onClose={() => setDoomed(null)}
      >
        {doomed && props.deleteMessage(doomed.item, doomed.position)}
      </ConfirmDialog>
    </section>
  );
}
