import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { ApiError } from '../api/errors';
import { useModal } from './modal';

/**
 * "Delete namespace x?" — a modal <dialog>, so the browser handles focus trapping and Escape.
 * `onConfirm` may be async; while it runs the buttons are disabled, and if it throws, the error
 * is shown inside the dialog (the dialog stays open).
 *
 *   <ConfirmDialog open={!!doomed} title="Delete namespace?" confirmLabel="Delete" danger
 *     onConfirm={() => namespaces.delete(doomed!.key)} onClose={() => setDoomed(null)}>…</ConfirmDialog>
 */
export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children?: ComponentChildren;
  confirmLabel?: string;
  danger?: boolean;
  onConfirm: () => unknown;
  /** Called after a confirmed action succeeds and when the user cancels. */
  onClose: () => void;
}

export function ConfirmDialog({ open, title, children, confirmLabel = 'Confirm', danger, onConfirm, onClose }: ConfirmDialogProps) {
  // An id of its own: a page may hold several dialogs, and a shared id would name them all alike.
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ref = useModal(open, () => setError(null));

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (err) {
      setError(err instanceof ApiError || err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    // `onCancel` is Escape: the dialog closes itself; the state follows.
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onCancel={onClose} onClose={() => open && onClose()}>
      <h2 id={titleId}>{title}</h2>
      <div class="dialog-body">{children}</div>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="dialog-actions">
        <button type="button" class="button" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" class={danger ? 'button button-danger' : 'button button-primary'} onClick={confirm} disabled={busy}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
