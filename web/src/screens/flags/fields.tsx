import { Field } from '../../components/field';
import type { ComponentChildren } from 'preact';

/**
 * Inputs the flag forms share: the enabled switch and the JSON editor (metadata, variant
 * attachments). Errors come from two places — the browser's JSON check and the API — and both
 * are shown beside the field, tied to it for assistive technology.
 */

export function EnabledSwitch({ checked, onChange, hint, disabled }: { checked: boolean; onChange: (on: boolean) => void; hint?: ComponentChildren; disabled?: boolean }) {
  return (
    <div class="field">
      <label class="flag-switch">
        <input type="checkbox" role="switch" name="enabled" checked={checked} disabled={disabled} onChange={(e) => onChange(e.currentTarget.checked)} />
        <span class="flag-switch-track" aria-hidden="true" />
        <span>Enabled</span>
      </label>
      {hint && <p class="field-hint">{hint}</p>}
    </div>
  );
}

export interface JsonFieldProps {
  label: string;
  name: string;
  value: string;
  onValue: (text: string) => void;
  /** The parse error or the API's message, shown beside the editor. */
  error?: string | null;
  hint?: ComponentChildren;
  /** Called by "Format" with the text indented (the caller parses; invalid text stays as it is). */
  onFormat?: () => void;
  rows?: number;
}

/** A monospaced text area for JSON, with a "Format" button that indents it. */
export function JsonField({ label, name, value, onValue, error, hint, onFormat, rows }: JsonFieldProps) {
  return (
    <Field label={label} name={name} error={error} hint={hint}>
      {(a11y) => (
        <div class="json-editor">
          <textarea {...a11y} class="mono" rows={rows ?? 6} spellcheck={false} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
          {onFormat && (
            <button type="button" class="button button-small button-quiet json-format" onClick={onFormat} disabled={value.trim() === ''}>
              Format JSON
            </button>
          )}
        </div>
      )}
    </Field>
  );
}
