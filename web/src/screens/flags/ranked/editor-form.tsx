import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * The form a rule or a rollout is edited in, inside its card (no dialog): titled by its heading
 * (`titleId`, so tests and screen readers find "Edit rule 2"), Escape cancels — unless a save is
 * under way, and without reaching the page's own Escape handling — and opening it takes the
 * keyboard to the first control matching `focusFirst`.
 */
export function EditorForm({ titleId, title, busy, onSubmit, onCancel, focusFirst, children }: {
  titleId: string;
  title: string;
  busy: boolean;
  onSubmit: (event: Event) => void;
  onCancel: () => void;
  focusFirst: string;
  children: ComponentChildren;
}) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    form.current?.querySelector<HTMLElement>(focusFirst)?.focus();
  }, []);
  return (
    <form
      ref={form}
      class="rule-editor"
      aria-labelledby={titleId}
      onSubmit={onSubmit}
      noValidate
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !busy) {
          e.stopPropagation();
          onCancel();
        }
      }}
    >
      <h3 id={titleId}>{title}</h3>
      {children}
    </form>
  );
}
