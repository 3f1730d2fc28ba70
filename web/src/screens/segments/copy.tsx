import { useState } from 'preact/hooks';
import { formErrors } from '../../api/errors';
import { useMutation } from '../../api/hooks';
import { segments as api } from '../../api/segments';
import type { Segment } from '../../api/types';
import { Field } from '../../components/field';
import { useToast } from '../../components/toast';
import { useNamespaces } from '../../session/namespaces';
import { FormDialog } from '../../components/form-dialog';
import { NamespaceOptions } from '../../components/namespace-switcher';

/**
 * Copy to namespace: the segment, with its constraints, created under the same key in another
 * namespace. The server's refusal (the key taken there) is shown beside the namespace picker.
 */
export function CopySegmentDialog({ open, ns, segment, onClose }: { open: boolean; ns: string; segment: Segment; onClose: () => void }) {
  return (
    <FormDialog open={open} title="Copy segment to namespace" onClose={onClose}>
      <CopyForm ns={ns} segment={segment} onClose={onClose} />
    </FormDialog>
  );
}

function CopyForm({ ns, segment, onClose }: { ns: string; segment: Segment; onClose: () => void }) {
  const { list } = useNamespaces();
  const toast = useToast();
  const targets = list.filter((n) => n.key !== ns);
  const [target, setTarget] = useState(targets[0]?.key ?? '');
  const copy = useMutation((to: string) => api.copy(ns, segment.key, to));
  const errors = formErrors(copy.error, ['namespaceKey']);
  // A refusal of the copy (key taken in the target) concerns the namespace picked.
  const targetError = errors.fields.namespaceKey ?? errors.form ?? undefined;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!(await copy.run(target))) return;
    toast.success(`Segment ${segment.key} copied to ${target}`);
    onClose();
  };

  if (targets.length === 0)
    return (
      <>
        <p>There is no other namespace to copy to. Create one under Settings → Namespaces first.</p>
        <div class="dialog-actions">
          <button type="button" class="button" onClick={onClose}>
            Close
          </button>
        </div>
      </>
    );
  return (
    <form class="form" onSubmit={submit} noValidate>
      <p class="dialog-body">
        Creates <strong class="mono">{segment.key}</strong> with its {segment.constraints.length === 1 ? 'constraint' : `${segment.constraints.length} constraints`} in the namespace you pick.
      </p>
      <Field label="Target namespace" name="namespaceKey" error={targetError}>
        {(a11y) => (
          <select {...a11y} value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
            <NamespaceOptions list={targets} />
          </select>
        )}
      </Field>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={onClose} disabled={copy.busy}>
          Cancel
        </button>
        <button type="submit" class="button button-primary" disabled={copy.busy || target === ''}>
          {copy.busy ? 'Copying…' : 'Copy'}
        </button>
      </div>
    </form>
  );
}
