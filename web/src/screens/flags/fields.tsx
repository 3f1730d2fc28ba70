import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Field } from '../../components/field';
import type { Parsed } from './json';

/**
 * Inputs the flag forms share: the enabled switch and the JSON editor (metadata, variant
 * attachments). Errors come from two places — the browser's JSON check and the API — and both
 * are shown beside the field, tied to it for assistive technology.
 */

/** The switch's hint on a variant flag (a boolean flag's says what it answers). */
export const VARIANT_ENABLED_HINT = 'A disabled flag skips its rules and answers with its default variant, if it has one.';

export function EnabledSwitch({ checked, onChange, hint, disabled, title }: { checked: boolean; onChange: (on: boolean) => void; hint?: ComponentChildren; disabled?: boolean; title?: string | null }) {
  return (
    <div class="field">
      {/* Disabled: the title says why (the role it needs, a read-only instance). */}
      <label class="flag-switch" title={(disabled && title) || undefined}>
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

/**
 * A JsonField's state: the text, the browser's parse error, "Format JSON" (`indent` writes a
 * parsed value back as text), and `check()` before sending — the parsed value, or the error
 * shown beside the field. Typing clears the error.
 *
 *   const metadata = useJsonField(prettyObject(flag.metadata), parseJsonObject, prettyObject);
 *   const parsed = metadata.check(); if (!parsed.ok) return;
 *   <JsonField label="Metadata" name="metadata" {...metadata.field} error={metadata.error ?? errors.fields.metadata} />
 */
export function useJsonField<T>(initial: string, parse: (text: string) => Parsed<T>, indent: (value: T) => string) {
  const [text, setText] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const check = (): Parsed<T> => {
    const parsed = parse(text);
    setError(parsed.ok ? null : parsed.error);
    return parsed;
  };
  return {
    error,
    check,
    setText,
    /** The JsonField's value, onValue and onFormat. */
    field: {
      value: text,
      onValue: (value: string) => {
        setText(value);
        setError(null);
      },
      onFormat: () => {
        const parsed = check();
        if (parsed.ok) setText(indent(parsed.value));
      },
    },
  };
}
