import { useEffect, useId, useState } from 'preact/hooks';
import { flags as api } from '../../api/flags';
import type { Flag } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { NamespaceOptions } from '../../components/namespace-switcher';
import { useToast } from '../../components/toast';
import { useNamespaces } from '../../session/namespaces';

/**
 * Flipt's "Copy to namespace": the flag, its metadata, variants and default variant created in
 * another namespace (rules are not copied: their segments live in this namespace). Failures stay
 * in the dialog, the usual one said plainly: that namespace already has a flag with this key.
 */
export function CopyFlagDialog({ open, ns, flag, onClose }: { open: boolean; ns: string; flag: Flag; onClose: () => void }) {
  const { list, reload } = useNamespaces();
  const toast = useToast();
  const id = useId();
  const others = list.filter((n) => n.key !== ns);
  const [target, setTarget] = useState('');
  // Another user may have added a namespace since the switcher loaded: refresh on opening.
  useEffect(() => {
    if (open) reload();
  }, [open]);
  useEffect(() => {
    if (!others.some((n) => n.key === target)) setTarget(others[0]?.key ?? '');
  }, [others.map((n) => n.key).join('\n')]);

  const copy = async () => {
    if (!target) throw new Error('There is no other namespace to copy to: create one under Settings → Namespaces.');
    // A key taken in the target is said by the error itself ("A flag with key … already exists in namespace …").
    await api.copy(flag, target);
    toast.success(`Flag ${flag.key} copied to namespace ${target}`);
  };

  return (
    <ConfirmDialog open={open} title="Copy flag to another namespace" confirmLabel="Copy" onConfirm={copy} onClose={onClose}>
      <p>
        Creates <strong class="mono">{flag.key}</strong> with its {flag.variants.length === 1 ? '1 variant' : `${flag.variants.length} variants`} in the namespace you choose. Rules
        and rollouts are not copied.
      </p>
      {others.length === 0 ? (
        <p class="muted">There is no other namespace yet.</p>
      ) : (
        <div class="field">
          <label for={id}>Copy to namespace</label>
          <select id={id} value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
            <NamespaceOptions list={others} />
          </select>
        </div>
      )}
    </ConfirmDialog>
  );
}
