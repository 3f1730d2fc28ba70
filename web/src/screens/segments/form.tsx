import { useId, useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { formErrors } from '../../api/errors';
import { useMutation } from '../../api/hooks';
import { segments as api, type SegmentInput } from '../../api/segments';
import type { MatchType, Segment } from '../../api/types';
import { ChangedElsewhere, useServerSeed } from '../../components/changed-elsewhere';
import { Field, FormError } from '../../components/field';
import { NameKeyFields, useKeyFromName } from '../../components/name-key-fields';
import { Page } from '../../components/page';
import { useToast } from '../../components/toast';
import { paths } from '../../routes/paths';
import { useCurrentNamespace } from '../../session/namespaces';
import { useWritable } from '../../session/access';

/** The API's field names this form shows errors beside. */
const FIELDS = ['key', 'name', 'description', 'matchType'] as const;

export function SegmentNewScreen() {
  return (
    <Page title="New segment">
      <SegmentForm />
    </Page>
  );
}

/**
 * Create (no `existing`: then to the new segment's page, to add constraints) or edit a segment's
 * name, description and match type. The key is proposed from the name until the user edits it,
 * and cannot change once created. Validation is the server's, shown beside the field it names.
 * An existing segment that changes elsewhere is followed, unless the form holds unsaved edits:
 * then it keeps them and offers to reload.
 */
export function SegmentForm({ existing, onSaved }: { existing?: Segment; onSaved?: (segment: Segment) => void }) {
  const ns = useCurrentNamespace();
  // No changes offered when the role (or a read-only instance) forbids them: session/access.ts.
  const { allowed, reason: whyNot } = useWritable(ns);
  const readOnly = !allowed;
  const toast = useToast();
  const [, navigate] = useLocation();
  const nameKey = useKeyFromName(existing);
  const [description, setDescription] = useState(existing?.description ?? '');
  const [matchType, setMatchType] = useState<MatchType>(existing?.matchType ?? 'ALL_MATCH_TYPE');
  const fieldsOf = (s?: Segment) => ({ name: s?.name ?? '', description: s?.description ?? '', matchType: s?.matchType ?? 'ALL_MATCH_TYPE' });
  const seed = useServerSeed(fieldsOf(existing), { name: nameKey.name, description, matchType }, (fields) => {
    nameKey.setName(fields.name);
    setDescription(fields.description);
    setMatchType(fields.matchType);
  });

  const save = useMutation((input: SegmentInput) =>
    existing ? api.update(ns, existing.key, { name: input.name, description: input.description, matchType: input.matchType }) : api.create(ns, input),
  );
  const errors = formErrors(save.error, FIELDS);

  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await save.run({ key: nameKey.key, name: nameKey.name, description, matchType });
    if (!saved) return;
    if (existing) {
      toast.success(`Segment ${saved.key} saved`);
      onSaved?.(saved);
    } else {
      toast.success(`Segment ${saved.key} created`);
      navigate(paths.segment(ns, saved.key));
    }
  };

  return (
    <form class="form" onSubmit={submit} noValidate aria-label={existing ? 'Segment details' : 'New segment'}>
      {existing && seed.offer !== null && <ChangedElsewhere what="This segment" onReload={seed.reload} />}
      <FormError message={errors.form} />
      <NameKeyFields
        nameKey={nameKey}
        errors={errors.fields}
        keyHint={existing ? 'A segment key cannot change.' : 'Letters, digits, "-", "_" and ","; rules and rollouts refer to it.'}
        keyFixed={existing !== undefined}
        readOnly={readOnly}
      />
      <MatchTypeField value={matchType} onValue={setMatchType} error={errors.fields.matchType} disabled={readOnly} title={whyNot} />
      <Field label="Description" name="description" error={errors.fields.description}>
        {(a11y) => <textarea {...a11y} rows={3} readOnly={readOnly} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}
      </Field>
      {!readOnly && (
        <div class="form-actions">
          <button type="submit" class="button button-primary" disabled={save.busy}>
            {save.busy ? 'Saving…' : existing ? 'Save' : 'Create'}
          </button>
          {!existing && (
            <Link href={paths.segments(ns)} class="button">
              Cancel
            </Link>
          )}
        </div>
      )}
    </form>
  );
}

const MATCH_TYPES: { value: MatchType; label: string; hint: string }[] = [
  { value: 'ALL_MATCH_TYPE', label: 'All', hint: 'an entity is in the segment when every constraint matches' },
  { value: 'ANY_MATCH_TYPE', label: 'Any', hint: 'an entity is in the segment when at least one constraint matches' },
];

/** ALL / ANY as two radio buttons (arrow keys move between them), with what each means. */
function MatchTypeField({ value, onValue, error, disabled, title }: { value: MatchType; onValue: (v: MatchType) => void; error?: string; disabled?: boolean; title?: string | null }) {
  const id = useId();
  return (
    <fieldset class={error ? 'field segment-radios field-invalid' : 'field segment-radios'} aria-describedby={error ? `${id}-error` : undefined} title={(disabled && title) || undefined}>
      <legend>Match type</legend>
      {MATCH_TYPES.map((m) => (
        <label key={m.value} class="segment-radio">
          <input type="radio" name={`${id}-match`} value={m.value} checked={value === m.value} disabled={disabled} onChange={() => onValue(m.value)} />
          <span>
            <strong>{m.label}</strong> <span class="muted">— {m.hint}</span>
          </span>
        </label>
      ))}
      {error && (
        <p class="field-error" id={`${id}-error`} data-field="matchType">
          {error}
        </p>
      )}
    </fieldset>
  );
}
