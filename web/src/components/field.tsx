import type { ComponentChildren, JSX } from 'preact';
import { useId } from 'preact/hooks';

/**
 * A labelled form field with its hint and its error beside it. The error comes from the API
 * (`formErrors(mutation.error, FIELDS).fields.key`) and is tied to the input with
 * aria-describedby / aria-invalid, so screen readers announce it with the field.
 *
 *   <Field label="Key" error={errors.key} hint="Letters, digits, - _ ,">
 *     {(a11y) => <input {...a11y} value={key} onInput={…} />}
 *   </Field>
 */
export interface FieldA11y {
  id: string;
  name?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

export interface FieldProps {
  label: string;
  /** The API field name (also the input's name); optional. */
  name?: string;
  error?: string | null;
  hint?: ComponentChildren;
  required?: boolean;
  children: (a11y: FieldA11y) => ComponentChildren;
}

export function Field({ label, name, error, hint, required, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined;
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <div class="field-label">
        {/* The label holds the name alone: the required mark stays outside it, out of the field's name. */}
        <label for={id}>{label}</label>
        {required && (
          <span class="field-required" title="required" aria-hidden="true">
            *
          </span>
        )}
      </div>
      {children({ id, name, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {error && (
        <p class="field-error" id={errorId} data-field={name}>
          {error}
        </p>
      )}
      {hint && (
        <p class="field-hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'label' | 'value' | 'onInput'>;

/** The common case: a one-line text input. */
export function TextField(props: Omit<FieldProps, 'children'> & { value: string; onValue: (value: string) => void; input?: InputProps }) {
  const { value, onValue, input, ...field } = props;
  return (
    <Field {...field}>
      {(a11y) => <input type="text" {...input} {...a11y} required={field.required} value={value} onInput={(e) => onValue(e.currentTarget.value)} />}
    </Field>
  );
}

/** A multi-line text input (descriptions). */
export function TextAreaField(props: Omit<FieldProps, 'children'> & { value: string; onValue: (value: string) => void; rows?: number }) {
  const { value, onValue, rows, ...field } = props;
  return <Field {...field}>{(a11y) => <textarea {...a11y} rows={rows ?? 3} value={value} onInput={(e) => onValue(e.currentTarget.value)} />}</Field>;
}

/** An error that belongs to no one field, at the top of a form. */
export function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div class="form-error" role="alert">
      {message}
    </div>
  );
}
