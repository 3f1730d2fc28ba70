import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { formErrors } from '../../api/errors';
import { flags as api, type FlagInput } from '../../api/flags';
import { useMutation } from '../../api/hooks';
import type { FlagType } from '../../api/types';
import { FormError, TextAreaField } from '../../components/field';
import { NameKeyFields, useKeyFromName } from '../../components/name-key-fields';
import { Page } from '../../components/page';
import { useToast } from '../../components/toast';
import { paths } from '../../routes/paths';
import { useCurrentNamespace } from '../../session/namespaces';
import { useWritable } from '../../session/access';
import { EnabledSwitch, JsonField, useJsonField, VARIANT_ENABLED_HINT } from './fields';
import { parseJsonObject, prettyObject } from './json';

/** The API's field names this form shows errors beside. */
const FIELDS = ['key', 'name', 'description', 'type', 'metadata'] as const;

const TYPES: { type: FlagType; label: string; hint: string }[] = [
  { type: 'VARIANT_FLAG_TYPE', label: 'Variant', hint: 'Answers with one of its variants, chosen by rules.' },
  { type: 'BOOLEAN_FLAG_TYPE', label: 'Boolean', hint: 'Answers true or false, chosen by rollouts.' },
];

/**
 * Flipt's "New flag": the key follows the name until the user types a key of their own; the
 * metadata must be a JSON object, checked here before sending (everything else the server checks,
 * and its message comes back beside the field it names).
 */
export function NewFlagScreen() {
  const ns = useCurrentNamespace();
  const [, navigate] = useLocation();
  const toast = useToast();
  // No changes offered when the role (or a read-only instance) forbids them: session/access.ts.
  const { allowed, reason: whyNot } = useWritable(ns);
  const readOnly = !allowed;
  const nameKey = useKeyFromName();
  const [description, setDescription] = useState('');
  const [type, setType] = useState<FlagType>('VARIANT_FLAG_TYPE');
  const [enabled, setEnabled] = useState(false);
  const metadata = useJsonField('', parseJsonObject, prettyObject);

  const save = useMutation((input: FlagInput) => api.create(ns, input));
  const errors = formErrors(save.error, FIELDS);

  const submit = async (event: Event) => {
    event.preventDefault();
    const parsed = metadata.check();
    if (!parsed.ok) {
      save.reset();
      return;
    }
    const hasMetadata = Object.keys(parsed.value).length > 0;
    const created = await save.run({ key: nameKey.key, name: nameKey.name, description, enabled, type, metadata: hasMetadata ? parsed.value : undefined });
    if (!created) return;
    toast.success(`Flag ${created.key} created`);
    navigate(paths.flag(ns, created.key));
  };

  return (
    <Page title="New flag">
      <form class="form" onSubmit={submit} noValidate>
        <p class="muted flag-form-ns">
          In namespace <strong class="mono">{ns}</strong>
        </p>
        <FormError message={errors.form} />
        <NameKeyFields nameKey={nameKey} errors={errors.fields} keyHint='What clients ask for. Letters, digits, "-", "_" and ","; it cannot change later.' />
        <TextAreaField label="Description" name="description" value={description} error={errors.fields.description} onValue={setDescription} />
        <fieldset class="flag-type">
          <legend>Type</legend>
          {TYPES.map((t) => (
            <label key={t.type} class={type === t.type ? 'flag-type-option selected' : 'flag-type-option'}>
              <input type="radio" name="type" value={t.type} checked={type === t.type} onChange={() => setType(t.type)} />
              <span>
                <strong>{t.label}</strong>
                <span class="muted flag-type-hint">{t.hint}</span>
              </span>
            </label>
          ))}
          {errors.fields.type && <p class="field-error">{errors.fields.type}</p>}
        </fieldset>
        <EnabledSwitch
          checked={enabled}
          onChange={setEnabled}
          hint={
            type === 'BOOLEAN_FLAG_TYPE'
              ? `Also the default value: when no rollout matches, the flag answers ${String(enabled)}.`
              : VARIANT_ENABLED_HINT
          }
        />
        <JsonField label="Metadata" name="metadata" {...metadata.field} error={metadata.error ?? errors.fields.metadata} hint='Optional. A JSON object, e.g. {"team": "payments"}.' rows={4} />
        <div class="form-actions">
          <button type="submit" class="button button-primary" disabled={save.busy || readOnly} title={whyNot ?? undefined}>
            {save.busy ? 'Creating…' : 'Create'}
          </button>
          <Link href={paths.flags(ns)} class="button">
            Cancel
          </Link>
        </div>
      </form>
    </Page>
  );
}
