import { useEffect, useRef } from 'preact/hooks';

/**
 * A native modal <dialog> that follows an `open` flag: showModal() (focus trapped, the page
 * behind inert, Escape handled by the browser) when it turns true, close() when false.
 * `onOpen` runs at each opening (a dialog that keeps state resets it there).
 */
export function useModal(open: boolean, onOpen?: () => void) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      onOpen?.();
      dialog.showModal();
    } else if (!open && dialog.open) dialog.close();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only the flag moves the dialog
  }, [open]);
  return ref;
}
