import { useEffect, useId, useRef } from 'preact/hooks';
import { Field } from '../../components/field';
import type { ComparisonType } from '../../api/types';
import { editsInUtc, fromLocalInput, valueKind, type ValueState } from './value';

/**
 * The value input a constraint's operator calls for: none ("is present"), a list editor ("is one
 * of": one input per item, Enter adds the next), a number, a date and time in the reader's own
 * time zone (the hint shows the UTC instant that is sent), or text. `error` is the server's.
 */
export function ValueInput({
  type,
  operator,
  state,
  onState,
  error,
}: {
  type: ComparisonType;
  operator: string;
  state: ValueState;
  onState: (state: ValueState) => void;
  error?: string;
}) {
  const kind = valueKind(type, operator);
  if (kind === 'none') return <p class="field-hint segment-no-value">This operator takes no value.</p>;
  if (kind === 'list') return <ListEditor type={type} items={state.list} onItems={(list) => onState({ ...state, list })} error={error} />;
  const single = (value: string) => onState({ ...state, single: value });
  if (kind === 'datetime') {
    const sent = state.single === '' ? null : fromLocalInput(state.single);
    const zone = editsInUtc() ? 'UTC' : 'Your local time';
    return (
      <Field label="Value" name="value" error={error} hint={sent ? `${zone}; sent as ${sent}.` : `${zone}; sent in UTC (RFC 3339).`}>
        {(a11y) => <input {...a11y} type="datetime-local" step={1} value={state.single} onInput={(e) => single(e.currentTarget.value)} />}
      </Field>
    );
  }
  return (
    <Field label="Value" name="value" error={error} hint={type === 'ENTITY_ID_COMPARISON_TYPE' ? 'Compared with the entity ID of the evaluation.' : undefined}>
      {(a11y) =>
        kind === 'number' ? (
          <input {...a11y} type="number" step="any" inputMode="decimal" value={state.single} onInput={(e) => single(e.currentTarget.value)} />
        ) : (
          <input {...a11y} type="text" autoComplete="off" spellcheck={false} value={state.single} onInput={(e) => single(e.currentTarget.value)} />
        )
      }
    </Field>
  );
}

/** "Is one of": the items one per row; the server receives them as a JSON array. */
function ListEditor({ type, items, onItems, error }: { type: ComparisonType; items: string[]; onItems: (items: string[]) => void; error?: string }) {
  const id = useId();
  const list = useRef<HTMLOListElement>(null);
  const focusLast = useRef(false);
  useEffect(() => {
    if (!focusLast.current) return;
    focusLast.current = false;
    const inputs = list.current?.querySelectorAll('input');
    inputs?.[inputs.length - 1]?.focus();
  }, [items.length]);
  const add = () => {
    focusLast.current = true;
    onItems([...items, '']);
  };
  const set = (i: number, value: string) => onItems(items.map((v, j) => (j === i ? value : v)));
  const remove = (i: number) => onItems(items.length === 1 ? [''] : items.filter((_, j) => j !== i));
  const errorId = error ? `${id}-error` : undefined;
  const inputType = type === 'DATETIME_COMPARISON_TYPE' ? 'datetime-local' : 'text';
  return (
    <fieldset class={error ? 'field segment-list field-invalid' : 'field segment-list'}>
      <legend>Values</legend>
      <ol ref={list} class="segment-list-items">
        {items.map((value, i) => (
          <li key={i}>
            <input
              type={inputType}
              step={inputType === 'datetime-local' ? 1 : undefined}
              inputMode={type === 'NUMBER_COMPARISON_TYPE' ? 'decimal' : undefined}
              aria-label={`Value ${i + 1}`}
              aria-invalid={error ? true : undefined}
              aria-describedby={[errorId, `${id}-hint`].filter(Boolean).join(' ')}
              autoComplete="off"
              value={value}
              onInput={(e) => set(i, e.currentTarget.value)}
              onKeyDown={(e) => {
                // Enter adds the next item rather than submitting the form.
                if (e.key === 'Enter') {
                  e.preventDefault();
                  add();
                }
              }}
            />
            <button type="button" class="button button-small button-quiet" aria-label={`Remove value ${i + 1}`} onClick={() => remove(i)}>
              Remove
            </button>
          </li>
        ))}
      </ol>
      <div>
        <button type="button" class="button button-small" onClick={add}>
          Add value
        </button>
      </div>
      {error && (
        <p class="field-error" id={errorId} data-field="value">
          {error}
        </p>
      )}
      <p class="field-hint" id={`${id}-hint`}>
        {type === 'NUMBER_COMPARISON_TYPE' ? 'One number per row' : 'One value per row'}; Enter adds a row. Sent as a JSON array (at most 100).
      </p>
    </fieldset>
  );
}
