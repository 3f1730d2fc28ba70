import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal <dialog> holding a form (the variant editor). showModal() gives focus trapping, Escape
 * and the inert page behind it for free; focus returns to the opening button when it closes.
 * components/confirm-dialog.tsx is the yes/no kind; this one takes any content.
 */
export function FormDialog({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    // `onCancel` is Escape: the dialog closes itself, the state follows.
    <dialog ref={ref} class="dialog flag-dialog" aria-labelledby="flag-dialog-title" onCancel={onClose} onClose={() => open && onClose()}>
      <h2 id="flag-dialog-title">{title}</h2>
      {open && children}
    </dialog>
  );
}
