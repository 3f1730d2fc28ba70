import { useState } from 'preact/hooks';
import { flags as api } from '../../api/flags';
import type { Flag, Variant } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Empty } from '../../components/states';
import { Headers, RowActions, Table } from '../../components/table';
import { useToast } from '../../components/toast';
import { useWritable } from '../../session/access';
import { DefaultVariant } from './default-variant';
import { FormDialog } from '../../components/form-dialog';
import { VariantForm } from './variant-form';

/**
 * A variant flag's variants: the table, add/edit in a dialog, delete after confirming, and the
 * default variant (what the flag answers when no rule matches). `onChanged` reloads the flag, so
 * the rules below see the same variants.
 */
export function VariantsSection({ ns, flag, onChanged }: { ns: string; flag: Flag; onChanged: () => void }) {
  // No changes offered when the role (or a read-only instance) forbids them: session/access.ts.
  const readOnly = !useWritable(ns).allowed;
  const toast = useToast();
  // null: closed; 'new': adding; a variant: editing it.
  const [editing, setEditing] = useState<Variant | 'new' | null>(null);
  const [doomed, setDoomed] = useState<Variant | null>(null);
  const defaultId = flag.defaultVariant?.id;

  return (
    <section class="flag-section" aria-labelledby="variants-title">
      <header class="flag-section-header">
        <h2 id="variants-title">Variants</h2>
        {!readOnly && (
          <button type="button" class="button button-primary button-small" onClick={() => setEditing('new')}>
            Add variant
          </button>
        )}
      </header>
      {flag.variants.length === 0 ? (
        <Empty title="No variants yet.">
          <p>A variant is one answer this flag can give (a key, and optional JSON attached to it). Rules choose among them.</p>
        </Empty>
      ) : (
        <Table class="variants-table" head={<Headers labels={['Key', 'Name', 'Description', 'Attachment']} actions />}>
          {flag.variants.map((v) => (
            <tr key={v.id} data-key={v.key}>
              <td class="mono">
                {v.key}
                {v.id === defaultId && <span class="flag-badge flag-badge-on variant-default">default</span>}
              </td>
              <td>{v.name}</td>
              <td class="muted">{v.description}</td>
              <td>
                {v.attachment ? (
                  <code class="variant-attachment" title={v.attachment}>
                    {v.attachment}
                  </code>
                ) : (
                  <span class="muted">—</span>
                )}
              </td>
              <RowActions name={`variant ${v.key}`} readOnly={readOnly} onEdit={() => setEditing(v)} onDelete={() => setDoomed(v)} />
            </tr>
          ))}
        </Table>
      )}
      {flag.variants.length > 0 && <DefaultVariant ns={ns} flag={flag} onChanged={onChanged} />}

      <FormDialog open={editing !== null} title={editing === 'new' ? 'Add variant' : `Edit variant ${editing?.key ?? ''}`} onClose={() => setEditing(null)} size="medium">
        <VariantForm
          ns={ns}
          flag={flag}
          variant={editing === 'new' || editing === null ? undefined : editing}
          onCancel={() => setEditing(null)}
          onSaved={(v) => {
            toast.success(editing === 'new' ? `Variant ${v.key} added` : `Variant ${v.key} saved`);
            setEditing(null);
            onChanged();
          }}
        />
      </FormDialog>
      <ConfirmDialog
        open={doomed !== null}
        title="Delete variant?"
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await api.deleteVariant(ns, flag.key, doomed!.id);
          toast.success(`Variant ${doomed!.key} deleted`);
          onChanged();
        }}
        onClose={() => setDoomed(null)}
      >
        <p>
          Variant <strong class="mono">{doomed?.key}</strong> will be removed from every rule's distribution
          {doomed?.id === defaultId ? ', and the flag will have no default variant' : ''}. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
