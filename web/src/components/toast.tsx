import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useMemo, useRef, useState } from 'preact/hooks';

/**
 * Short confirmations ("Namespace created") and background failures, in a polite live region
 * at the corner. Errors that concern a form's field belong beside the field, not here.
 *
 *   const toast = useToast(); toast.success('Namespace created');
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

const ToastContext = createContext<Toasts | null>(null);

export function useToast(): Toasts {
  const toasts = useContext(ToastContext);
  if (!toasts) throw new Error('useToast outside <ToastProvider>');
  return toasts;
}

const SHOWN_MS = 5000;

export function ToastProvider({ children }: { children: ComponentChildren }) {
  const [items, setItems] = useState<Item[]>([]);
  const next = useRef(0);
  const dismiss = useCallback((id: number) => setItems((all) => all.filter((t) => t.id !== id)), []);
  const push = useCallback(
    (kind: Kind, message: string) => {
      const id = ++next.current;
      setItems((all) => [...all.slice(-3), { id, kind, message }]);
      // Errors stay until dismissed: they may need reading twice.
      if (kind !== 'error') setTimeout(() => dismiss(id), SHOWN_MS);
    },
    [dismiss],
  );
  const api = useMemo<Toasts>(() => ({ success: (m) => push('success', m), error: (m) => push('error', m), info: (m) => push('info', m) }), [push]);
  return (
    <ToastContext.Provider value={api}>
      {children}
      <div class="toasts" role="status" aria-live="polite">
        {items.map((t) => (
          <div key={t.id} class={`toast toast-${t.kind}`}>
            <span>{t.message}</span>
            <button type="button" class="toast-close" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
