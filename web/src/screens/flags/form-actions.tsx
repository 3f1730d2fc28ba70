import type { ComponentChildren } from 'preact';

/**
 * The buttons under the flag page's forms (a variant, a rule, a rollout): submit, which reads
 * "Saving…" while `busy`, and a cancel button that cannot interrupt a save under way.
 */
export function FormActions({ busy, blocked = false, submitLabel, onCancel, cancelLabel = 'Cancel' }: {
  busy: boolean;
  /** The form cannot be sent yet (e.g. a field is invalid); a save under way blocks it too. */
  blocked?: boolean;
  submitLabel: string;
  onCancel: () => void;
  cancelLabel?: ComponentChildren;
}) {
  return (
    <div class="form-actions">
      <button type="submit" class="button button-primary" disabled={busy || blocked}>
        {busy ? 'Saving…' : submitLabel}
      </button>
      <button type="button" class="button" onClick={onCancel} disabled={busy}>
        {cancelLabel}
      </button>
    </div>
  );
}
