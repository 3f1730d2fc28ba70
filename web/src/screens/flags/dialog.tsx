import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

/**
 * A modal <dialog> holding a form (the variant editor). showModal() gives focus trapping, Escape
 * and the inert page behind it for free; focus returns to the opening button when it closes.
 * components/confirm-dialog.tsx is the yes/no kind; this one takes any content.
 */
export function FormDialog({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    // `onCancel` is Escape: the dialog closes itself, the state follows.
    <dialog ref={ref} class="dialog flag-dialog" aria-labelledby={titleId} onCancel={onClose} onClose={() => open && onClose()}>
      <h2 id={titleId}>{title}</h2>
      {open && children}
    </dialog>
  );
}
