import { useState } from 'preact/hooks';
import { formErrors } from '../../api/errors';
import { flags as api, type VariantInput } from '../../api/flags';
import { useMutation } from '../../api/hooks';
import type { Flag, Variant } from '../../api/types';
import { FormError, TextAreaField, TextField } from '../../components/field';
import { JsonField, useJsonField } from './fields';
import { FormActions } from './form-actions';
import { parseJson, pretty } from './json';

const FIELDS = ['key', 'name', 'description', 'attachment'] as const;

/**
 * Creates (no `variant`) or edits one variant of `flag`, inside the variants section's dialog.
 * The attachment is checked as JSON here, before anything is sent: a parse error stays beside the
 * field and no request is made. It is shown indented and sent compact (what evaluation returns).
 */
export function VariantForm({ ns, flag, variant, onSaved, onCancel }: { ns: string; flag: Flag; variant?: Variant; onSaved: (v: Variant) => void; onCancel: () => void }) {
  const [key, setKey] = useState(variant?.key ?? '');
  const [name, setName] = useState(variant?.name ?? '');
  const [description, setDescription] = useState(variant?.description ?? '');
  // "Format JSON" is offered only for non-blank text, which never parses to "none" (undefined).
  const attachment = useJsonField(pretty(variant?.attachment ?? ''), parseJson, (value) => (value === undefined ? '' : JSON.stringify(value, null, 2)));
  const save = useMutation((input: VariantInput) => (variant ? api.updateVariant(ns, flag.key, variant.id, input) : api.createVariant(ns, flag.key, input)));
  // A key already taken (`variant "k" is not unique for flag …`) goes beside the key, as formErrors places it.
  const errors = formErrors(save.error, FIELDS);

  const submit = async (event: Event) => {
    event.preventDefault();
    const parsed = attachment.check();
    if (!parsed.ok) {
      save.reset();
      return;
    }
    const saved = await save.run({ key, name, description, attachment: parsed.value === undefined ? '' : JSON.stringify(parsed.value) });
    if (saved) onSaved(saved);
  };

  return (
    <form class="form" onSubmit={submit} noValidate>
      <FormError message={errors.form} />
      <TextField label="Key" name="key" required value={key} error={errors.fields.key} onValue={setKey} hint="What evaluation answers with; unique within the flag." input={{ class: 'mono', autoComplete: 'off', spellcheck: false }} />
      <TextField label="Name" name="name" value={name} error={errors.fields.name} onValue={setName} />
      <TextAreaField label="Description" name="description" value={description} error={errors.fields.description} onValue={setDescription} rows={2} />
      <JsonField
        label="Attachment"
        name="attachment"
        {...attachment.field}
        error={attachment.error ?? errors.fields.attachment}
        hint={'Optional JSON returned with the variant, e.g. {"color": "blue"}.'}
      />
      <FormActions busy={save.busy} submitLabel={variant ? 'Save variant' : 'Add variant'} onCancel={onCancel} />
    </form>
  );
}
