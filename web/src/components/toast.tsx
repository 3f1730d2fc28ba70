import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';

/**
 * Short confirmations ("Namespace created") and background failures, in a polite live region.
 * Errors that concern a form's field belong beside the field, not here.
 *
 *   const toast = useToast(); toast.success('Namespace created');
 *
 * The messages are shown by <ToastRegion/>, a line in the page's sticky header: it takes room of
 * its own instead of floating over the page, so it never covers the button a user clicks next.
 * A confirmation lasts until the user's next click (or the next page); an error until it is
 * dismissed or the page changes. None carries over to another page, except the one the action
 * that opened it announced (`toast.success('Flag deleted'); navigate(…)`).
 */
type Kind = 'success' | 'error' | 'info';
interface Item {
  id: number;
  kind: Kind;
  message: string;
}

export interface Toasts {
  success(message: string): void;
  error(message: string): void;
  info(message: string): void;
}

interface ToastState {
  items: Item[];
  dismiss(id: number): void;
}

const ToastContext = createContext<Toasts | null>(null);
const ItemsContext = createContext<ToastState>({ items: [], dismiss: () => undefined });

export function useToast(): Toasts {
  const toasts = useContext(ToastContext);
  if (!toasts) throw new Error('useToast outside <ToastProvider>');
  return toasts;
}

/** The most shown at once: the newest. */
const SHOWN = 3;

export function ToastProvider({ children }: { children: ComponentChildren }) {
  const [items, setItems] = useState<Item[]>([]);
  const next = useRef(0);
  /** Toasts pushed in the task that is running: a navigation in that same task keeps them. */
  const fresh = useRef(new Set<number>());
  const dismiss = useCallback((id: number) => setItems((all) => all.filter((t) => t.id !== id)), []);
  const push = useCallback((kind: Kind, message: string) => {
    const id = ++next.current;
    fresh.current.add(id);
    queueMicrotask(() => fresh.current.delete(id));
    setItems((all) => [...all.slice(1 - SHOWN), { id, kind, message }]);
  }, []);

  useEffect(() => {
    // The next click is the next action: confirmations have been seen. Capture phase, so that a
    // toast the click itself pushes (synchronously) comes after and stays.
    const onClick = (event: MouseEvent) => {
      if ((event.target as Element | null)?.closest?.('.toasts')) return;
      setItems((all) => (all.some((t) => t.kind !== 'error') ? all.filter((t) => t.kind === 'error') : all));
    };
    // Another page: nothing carries over but what was pushed for it, in the task that navigated
    // (the router dispatches hashchange synchronously; the Back button in a task of its own).
    const onNavigate = () => {
      const kept = new Set(fresh.current);
      setItems((all) => all.filter((t) => kept.has(t.id)));
    };
    document.addEventListener('click', onClick, true);
    window.addEventListener('hashchange', onNavigate);
    return () => {
      document.removeEventListener('click', onClick, true);
      window.removeEventListener('hashchange', onNavigate);
    };
  }, []);

  const api = useMemo<Toasts>(() => ({ success: (m) => push('success', m), error: (m) => push('error', m), info: (m) => push('info', m) }), [push]);
  const state = useMemo<ToastState>(() => ({ items, dismiss }), [items, dismiss]);
  return (
    <ToastContext.Provider value={api}>
      <ItemsContext.Provider value={state}>{children}</ItemsContext.Provider>
    </ToastContext.Provider>
  );
}

/** Where the messages show: in the layout's header. The live region is always there (empty when quiet), so additions are announced. */
export function ToastRegion() {
  const { items, dismiss } = useContext(ItemsContext);
  return (
    <div class="toasts" role="status" aria-live="polite">
      {items.map((t) => (
        <div key={t.id} class={`toast toast-${t.kind}`}>
          <span class="toast-message">{t.message}</span>
          <button type="button" class="toast-close" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
