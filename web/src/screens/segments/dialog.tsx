import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

/**
 * A modal <dialog> holding a form (constraint editor, copy to namespace, new token): showModal()
 * traps focus, Escape closes, the page behind is inert, and focus returns to the opening button.
 * Its content is mounted only while open, so each opening starts from a fresh form.
 */
export function FormDialog({ open, title, onClose, wide, children }: { open: boolean; title: string; onClose: () => void; wide?: boolean; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    // `onCancel` is Escape: the dialog closes itself, the state follows.
    <dialog ref={ref} class={wide ? 'dialog form-dialog form-dialog-wide' : 'dialog form-dialog'} aria-labelledby={`${id}-title`} onCancel={onClose} onClose={() => open && onClose()}>
      <h2 id={`${id}-title`}>{title}</h2>
      {open && children}
    </dialog>
  );
}
