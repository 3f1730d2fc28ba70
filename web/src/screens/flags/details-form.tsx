import { useState } from 'preact/hooks';
import { formErrors } from '../../api/errors';
import { flags as api, updateOf, type FlagUpdate } from '../../api/flags';
import { useMutation } from '../../api/hooks';
import type { Flag } from '../../api/types';
import { ChangedElsewhere, useServerSeed } from '../../components/changed-elsewhere';
import { FormError, TextAreaField, TextField } from '../../components/field';
import { useToast } from '../../components/toast';
import { useWritable } from '../../session/access';
import { EnabledSwitch, JsonField, useJsonField, VARIANT_ENABLED_HINT } from './fields';
import { parseJsonObject, prettyObject } from './json';

const FIELDS = ['name', 'description', 'metadata'] as const;

/** The form's fields as `flag` has them (the metadata as the editor shows it). */
const fieldsOf = (flag: Flag) => ({ name: flag.name, description: flag.description, enabled: flag.enabled, metadata: prettyObject(flag.metadata) });

/**
 * A flag's own fields: name, description, enabled, metadata. The key and type cannot change
 * (Flipt has no rename or retype). The default variant is kept as the flag holds it: PUT
 * replaces everything, and leaving it out would clear it. Metadata is sent always (`{}` when the
 * editor is empty, which clears it). When the flag changes elsewhere the form follows, unless
 * it holds unsaved edits: then it keeps them and offers to reload.
 */
export function FlagDetailsForm({ ns, flag, onSaved }: { ns: string; flag: Flag; onSaved: () => void }) {
  // No changes offered when the role (or a read-only instance) forbids them: session/access.ts.
  const { allowed, reason: whyNot } = useWritable(ns);
  const readOnly = !allowed;
  const toast = useToast();
  const [name, setName] = useState(flag.name);
  const [description, setDescription] = useState(flag.description);
  const [enabled, setEnabled] = useState(flag.enabled);
  const metadata = useJsonField(prettyObject(flag.metadata), parseJsonObject, prettyObject);
  const seed = useServerSeed(fieldsOf(flag), { name, description, enabled, metadata: metadata.field.value }, (fields) => {
    setName(fields.name);
    setDescription(fields.description);
    setEnabled(fields.enabled);
    metadata.setText(fields.metadata);
  });
  const save = useMutation((input: FlagUpdate) => api.update(ns, flag.key, input));
  const errors = formErrors(save.error, FIELDS);
  const boolean = flag.type === 'BOOLEAN_FLAG_TYPE';

  const submit = async (event: Event) => {
    event.preventDefault();
    const parsed = metadata.check();
    if (!parsed.ok) {
      save.reset();
      return;
    }
    const saved = await save.run({ ...updateOf(flag), name, description, enabled, metadata: parsed.value });
    if (!saved) return;
    metadata.setText(prettyObject(saved.metadata));
    toast.success(`Flag ${flag.key} saved`);
    onSaved();
  };

  return (
    <form class="form flag-details" onSubmit={submit} noValidate aria-label="Flag details">
      {seed.offer !== null && <ChangedElsewhere what="This flag" onReload={seed.reload} />}
      <FormError message={errors.form} />
      <TextField label="Key" name="key" value={flag.key} onValue={() => undefined} hint="A flag's key cannot change." input={{ readOnly: true, class: 'mono' }} />
      <TextField label="Name" name="name" required value={name} error={errors.fields.name} onValue={setName} input={{ readOnly }} />
      <TextAreaField label="Description" name="description" value={description} error={errors.fields.description} onValue={setDescription} />
      <EnabledSwitch
        checked={enabled}
        onChange={setEnabled}
        disabled={readOnly}
        title={whyNot}
        hint={
          boolean ? (
            <>
              Also this boolean flag's default value: when no rollout matches it answers{' '}
              <strong class="mono" data-testid="boolean-default">
                {String(enabled)}
              </strong>
              .
            </>
          ) : (
            VARIANT_ENABLED_HINT
          )
        }
      />
      <JsonField label="Metadata" name="metadata" {...metadata.field} error={metadata.error ?? errors.fields.metadata} hint="Optional. A JSON object; empty clears it." rows={4} />
      {!readOnly && (
        <div class="form-actions">
          <button type="submit" class="button button-primary" disabled={save.busy}>
            {save.busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      )}
    </form>
  );
}
