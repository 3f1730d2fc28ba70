import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../../api/errors';

/**
 * Reordering a ranked list (rules, rollouts) by drag-and-drop and by keyboard, saved as one
 * "order" request with every id. The new order shows at once; if the server refuses it, the old
 * order comes back and the message is shown. Drag visuals are classes (the CSP forbids inline
 * styles): `sortable-dragging` on the dragged item, `sortable-over-before|after` on the target.
 *
 *   const reorder = useReorder(rules, (r) => r.id, (ids) => api.order(ns, flag, ids), reload, 'Rule');
 *   (`reload` runs after every save, refused or not: the list then shows the server's order.)
 *   <ol ref={reorder.listRef}>{reorder.items.map((r, i) => <li {...reorder.itemProps(r.id)}>…<MoveButtons …/></li>)}</ol>
 */
export interface Reorder<T> {
  /** The items in the order shown (the pending order while it is being saved). */
  items: T[];
  busy: boolean;
  error: string | null;
  dismissError: () => void;
  /** For a polite live region: "Rule moved to position 1 of 3". */
  announcement: string;
  listRef: { current: HTMLOListElement | null };
  move: (id: string, delta: -1 | 1) => void;
  /** The drag-and-drop handlers and `data-sortable-id` for an item's <li>. */
  itemProps: (id: string, enabled: boolean) => JSX.HTMLAttributes<HTMLLIElement> & { 'data-sortable-id': string };
  /** The item's drag class ('' when none), to add to its own. */
  dragClass: (id: string) => string;
}

export function useReorder<T>(source: T[], idOf: (item: T) => string, save: (ids: string[]) => Promise<unknown>, refresh: () => void, noun: string): Reorder<T> {
  const [pending, setPendingState] = useState<string[] | null>(null);
  // Effects may run late (Preact flushes a render's effects when the next render starts, after
  // a new move): they read these refs, never their render's stale state.
  const pendingRef = useRef<string[] | null>(null);
  /** Orders shown before the pending one: a reload that answers one of them is older than our save. */
  const stale = useRef(new Set<string>());
  const setPending = (next: string[] | null) => {
    pendingRef.current = next;
    if (next === null) stale.current.clear();
    setPendingState(next);
  };
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [drag, setDrag] = useState<{ id: string; over: string | null } | null>(null);
  const listRef = useRef<HTMLOListElement | null>(null);
  const busyRef = useRef(false);
  /** The moved item's button to keep focus on, through the re-render and the reload that follow a move. */
  const focus = useRef<{ id: string; dir: 'up' | 'down' } | null>(null);

  const sourceIds = source.map(idOf);
  const latestSource = useRef(sourceIds);
  latestSource.current = sourceIds;
  const byId = new Map(source.map((item) => [idOf(item), item]));
  const items = pending ? pending.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])) : source;
  const ids = items.map(idOf);

  // The server's order replaces the pending one once it shows our save (or someone else's
  // change); an answer older than the save (a reload that crossed it) is not taken for either.
  useEffect(() => {
    const mine = pendingRef.current;
    if (!mine) return;
    const now = sourceIds.join();
    if (now === mine.join() || !stale.current.has(now)) setPending(null);
  }, [source]);

  useEffect(() => {
    const want = focus.current;
    if (!want || !listRef.current) return;
    const item = listRef.current.querySelector(`[data-sortable-id="${CSS.escape(want.id)}"]`);
    // At the top the "up" button is disabled (it cannot hold focus): the other one takes it.
    const button = item?.querySelector<HTMLButtonElement>(`[data-move="${want.dir}"]:not(:disabled)`) ?? item?.querySelector<HTMLButtonElement>('[data-move]:not(:disabled)');
    if (button && document.activeElement !== button) button.focus();
    if (!busyRef.current && pendingRef.current === null) focus.current = null;
  });

  const commit = async (next: string[]) => {
    if (busyRef.current || next.join() === ids.join()) return;
    const before = ids;
    busyRef.current = true;
    stale.current.add(ids.join()).add(sourceIds.join());
    setPending(next);
    setBusy(true);
    setError(null);
    try {
      await save(next);
      refresh();
    } catch (err) {
      // Back to the order shown before the move (the server's, or an earlier move's not yet reloaded).
      setPending(before.join() === latestSource.current.join() ? null : before);
      // And what the server holds now (the refusal may come from a change made elsewhere).
      refresh();
      setError(`The new order was not saved: ${err instanceof ApiError || err instanceof Error ? err.message : String(err)}`);
      setAnnouncement('');
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };

  const move = (id: string, delta: -1 | 1) => {
    const from = ids.indexOf(id);
    const to = from + delta;
    if (from < 0 || to < 0 || to >= ids.length || busyRef.current) return;
    const next = [...ids];
    next.splice(from, 1);
    next.splice(to, 0, id);
    focus.current = { id, dir: delta < 0 ? 'up' : 'down' };
    setAnnouncement(`${noun} moved to position ${to + 1} of ${ids.length}.`);
    void commit(next);
  };

  const dragClass = (id: string) => {
    if (!drag) return '';
    if (drag.id === id) return 'sortable-dragging';
    if (drag.over !== id) return '';
    return ids.indexOf(drag.id) < ids.indexOf(id) ? 'sortable-over-after' : 'sortable-over-before';
  };

  const itemProps = (id: string, enabled: boolean) => {
    return {
      'data-sortable-id': id,
      draggable: enabled && !busy,
      onDragStart: (e: DragEvent) => {
        if (!enabled || busyRef.current) return;
        e.dataTransfer?.setData('text/plain', id);
        if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
        setDrag({ id, over: null });
      },
      onDragOver: (e: DragEvent) => {
        if (!drag || drag.id === id) return;
        e.preventDefault();
        if (e.dataTransfer) e.dataTransfer.dropEffect = 'move';
        if (drag.over !== id) setDrag({ ...drag, over: id });
      },
      onDragLeave: (e: DragEvent) => {
        const into = e.relatedTarget as Node | null;
        if (drag?.over === id && !(into && (e.currentTarget as HTMLElement).contains(into))) setDrag({ ...drag, over: null });
      },
      onDrop: (e: DragEvent) => {
        e.preventDefault();
        if (!drag || drag.id === id) return setDrag(null);
        // Dropped on an item: the dragged one takes that item's place.
        const next = ids.filter((x) => x !== drag.id);
        next.splice(ids.indexOf(id), 0, drag.id);
        setDrag(null);
        setAnnouncement(`${noun} moved to position ${ids.indexOf(id) + 1} of ${ids.length}.`);
        void commit(next);
      },
      onDragEnd: () => setDrag(null),
    };
  };

  return { items, busy, error, dismissError: () => setError(null), announcement, listRef, move, itemProps, dragClass };
}

/** "Move rule 2 up" / "down": the keyboard's way to reorder (focus stays on the moved item). */
export function MoveButtons({ label, index, count, busy, onMove }: { label: string; index: number; count: number; busy: boolean; onMove: (delta: -1 | 1) => void }) {
  return (
    <span class="move-buttons">
      <button type="button" class="button button-small button-quiet" data-move="up" aria-label={`Move ${label} up`} title="Move up" disabled={index === 0} aria-disabled={busy || undefined} onClick={() => onMove(-1)}>
        ↑
      </button>
      <button type="button" class="button button-small button-quiet" data-move="down" aria-label={`Move ${label} down`} title="Move down" disabled={index === count - 1} aria-disabled={busy || undefined} onClick={() => onMove(1)}>
        ↓
      </button>
    </span>
  );
}

/** The grip shown on a draggable item (the item itself is what is dragged; keyboards use MoveButtons). */
export function DragHandle() {
  return (
    <span class="drag-handle" aria-hidden="true" title="Drag to reorder">
      ⠿
    </span>
  );
}
