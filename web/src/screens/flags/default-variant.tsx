import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { flags as api, updateOf } from '../../api/flags';
import { useMutation } from '../../api/hooks';
import type { Flag } from '../../api/types';
import { FormError } from '../../components/field';
import { useToast } from '../../components/toast';
import { useWritable } from '../../session/access';

/**
 * The variant a variant flag answers with when no rule matches or it is disabled (or none).
 * Saved on its own with PUT: Flipt's PUT replaces the whole flag, so the other fields go as the
 * flag holds them now (metadata is left out, which leaves it unchanged), not as an unsaved
 * details form shows them.
 */
export function DefaultVariant({ ns, flag, onChanged }: { ns: string; flag: Flag; onChanged: () => void }) {
  // No changes offered when the role (or a read-only instance) forbids them: session/access.ts.
  const { allowed, reason: whyNot } = useWritable(ns);
  const readOnly = !allowed;
  const toast = useToast();
  const id = useId();
  const saved = flag.defaultVariant?.id ?? '';
  const [chosen, setChosen] = useState(saved);
  // The default changes elsewhere too (deleting the default variant clears it, another browser
  // sets it): follow it, unless another choice waits unsaved here.
  const followed = useRef(saved);
  useEffect(() => {
    if (chosen === followed.current) setChosen(saved);
    followed.current = saved;
  }, [saved]);
  const save = useMutation((defaultVariantId: string) => api.update(ns, flag.key, { ...updateOf(flag), defaultVariantId }));

  const submit = async (event: Event) => {
    event.preventDefault();
    const updated = await save.run(chosen);
    if (!updated) return;
    toast.success(updated.defaultVariant ? `Default variant set to ${updated.defaultVariant.key}` : 'Default variant cleared');
    onChanged();
  };

  return (
    <form class="default-variant" onSubmit={submit}>
      <FormError message={save.error instanceof Error ? save.error.message : null} />
      <div class="default-variant-row">
        <label for={id}>Default variant</label>
        <select id={id} name="defaultVariantId" value={chosen} disabled={readOnly} title={whyNot ?? undefined} onChange={(e) => setChosen(e.currentTarget.value)}>
          <option value="">None</option>
          {flag.variants.map((v) => (
            <option key={v.id} value={v.id}>
              {v.name && v.name !== v.key ? `${v.key} (${v.name})` : v.key}
            </option>
          ))}
        </select>
        {!readOnly && (
          <button type="submit" class="button button-small" disabled={save.busy || chosen === saved}>
            {save.busy ? 'Saving…' : 'Save default'}
          </button>
        )}
      </div>
      <p class="field-hint">What the flag answers when no rule matches, and while it is disabled. With “None” it answers no variant.</p>
    </form>
  );
}
