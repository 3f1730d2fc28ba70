import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { useModal } from './modal';

/**
 * A modal <dialog> holding a form (variant and constraint editors, copy to namespace, new
 * token): showModal() traps focus, Escape closes, the page behind is inert, and focus returns to
 * the opening button. Its content is mounted only while open, so each opening starts from a fresh
 * form. components/confirm-dialog.tsx is the yes/no kind; this one takes any content.
 * `size`: 30rem by default, `medium` 34rem, `wide` 38rem (each at most the window's width).
 */
export function FormDialog({ open, title, onClose, size, children }: { open: boolean; title: string; onClose: () => void; size?: 'medium' | 'wide'; children: ComponentChildren }) {
  const ref = useModal(open);
  const titleId = useId();
  return (
    // `onCancel` is Escape: the dialog closes itself, the state follows.
    <dialog ref={ref} class={size ? `dialog form-dialog form-dialog-${size}` : 'dialog form-dialog'} aria-labelledby={titleId} onCancel={onClose} onClose={() => open && onClose()}>
      <h2 id={titleId}>{title}</h2>
      {open && children}
    </dialog>
  );
}
