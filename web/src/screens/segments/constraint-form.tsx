import { useState } from 'preact/hooks';
import { ApiError, formErrors } from '../../api/errors';
import { useMutation } from '../../api/hooks';
import { COMPARISON_TYPES, OPERATORS, operatorLabel, segments as api, type ConstraintInput } from '../../api/segments';
import type { ComparisonType, Constraint } from '../../api/types';
import { Field, FormError, TextAreaField, TextField } from '../../components/field';
import { EMPTY_VALUE, valueFrom, valueKind, valueStateFrom, type ValueState } from './value';
import { ValueInput } from './value-input';

const FIELDS = ['type', 'property', 'operator', 'value', 'description'] as const;

/**
 * Flipt's constraint messages that do not use the `invalid field x:` wording, and the field each
 * is about, so that they too appear beside their input (the wording is the server's,
 * internal/management/constraints.ts).
 */
const ABOUT: [RegExp, (typeof FIELDS)[number]][] = [
  [/^invalid constraint type/, 'type'],
  [/^property is .* instead of "entityId"$/s, 'property'],
  [/^constraint operator .* is not valid for type/, 'operator'],
  [/^(invalid value provided for property|too many values provided for property|parsing datetime from)/, 'value'],
];

export function constraintErrors(error: unknown): { fields: Record<string, string>; form: string | null } {
  const split = formErrors(error, FIELDS);
  if (split.form && error instanceof ApiError) {
    const field = ABOUT.find(([pattern]) => pattern.test(error.message))?.[1];
    if (field) return { fields: { [field]: error.message }, form: null };
  }
  return split;
}

/**
 * Adds or edits one constraint. The comparison type decides which operators the picker offers
 * (exactly the server's list for that type) and the operator decides the value input. Entity ID
 * constraints always compare the `entityId` property.
 */
export function ConstraintForm({
  ns,
  segmentKey,
  existing,
  onSaved,
  onCancel,
}: {
  ns: string;
  segmentKey: string;
  existing?: Constraint;
  onSaved: (constraint: Constraint) => void;
  onCancel: () => void;
}) {
  const [type, setType] = useState<ComparisonType>(existing?.type ?? 'STRING_COMPARISON_TYPE');
  const [property, setProperty] = useState(existing?.property ?? '');
  const [operator, setOperator] = useState(existing?.operator ?? OPERATORS.STRING_COMPARISON_TYPE[0]);
  const [value, setValue] = useState<ValueState>(() => (existing ? valueStateFrom(existing.type, existing.operator, existing.value) : EMPTY_VALUE));
  const [description, setDescription] = useState(existing?.description ?? '');

  const save = useMutation((input: ConstraintInput) =>
    existing ? api.updateConstraint(ns, segmentKey, existing.id, input) : api.createConstraint(ns, segmentKey, input),
  );
  const errors = constraintErrors(save.error);
  const entityId = type === 'ENTITY_ID_COMPARISON_TYPE';

  const changeType = (next: ComparisonType) => {
    setType(next);
    // The operator stays when the new type has it too (eq, isoneof …); otherwise the first one offered.
    if (!OPERATORS[next].includes(operator)) setOperator(OPERATORS[next][0]);
    if (next === 'ENTITY_ID_COMPARISON_TYPE') setProperty('entityId');
    else if (type === 'ENTITY_ID_COMPARISON_TYPE') setProperty('');
    setValue(EMPTY_VALUE);
    save.reset();
  };
  const changeOperator = (next: string) => {
    // From one value to a list, the value becomes the list's first item.
    if (valueKind(type, next) === 'list' && valueKind(type, operator) !== 'list' && value.single !== '') setValue({ single: value.single, list: [value.single] });
    setOperator(next);
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await save.run({ type, property, operator, value: valueFrom(type, operator, value), description });
    if (saved) onSaved(saved);
  };

  return (
    <form class="form" onSubmit={submit} noValidate aria-label={existing ? 'Edit constraint' : 'New constraint'}>
      <FormError message={errors.form} />
      <div class="segment-form-row">
        <Field label="Type" name="type" error={errors.fields.type}>
          {(a11y) => (
            <select {...a11y} value={type} onChange={(e) => changeType(e.currentTarget.value as ComparisonType)}>
              {COMPARISON_TYPES.map((t) => (
                <option key={t.type} value={t.type}>
                  {t.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <TextField
          label="Property"
          name="property"
          required
          value={property}
          error={errors.fields.property}
          hint={entityId ? 'Entity ID constraints compare the entity ID itself.' : 'The context key to compare (e.g. country).'}
          input={{ readOnly: entityId, class: 'mono', autoComplete: 'off', spellcheck: false }}
          onValue={setProperty}
        />
      </div>
      <Field label="Operator" name="operator" error={errors.fields.operator}>
        {(a11y) => (
          <select {...a11y} value={operator} onChange={(e) => changeOperator(e.currentTarget.value)}>
            {OPERATORS[type].map((op) => (
              <option key={op} value={op}>
                {operatorLabel(type, op)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <ValueInput type={type} operator={operator} state={value} onState={setValue} error={errors.fields.value} />
      <TextAreaField label="Description" name="description" rows={2} value={description} error={errors.fields.description} onValue={setDescription} />
      <div class="form-actions">
        <button type="submit" class="button button-primary" disabled={save.busy}>
          {save.busy ? 'Saving…' : existing ? 'Save constraint' : 'Add constraint'}
        </button>
        <button type="button" class="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
