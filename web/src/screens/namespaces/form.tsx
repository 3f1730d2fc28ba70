import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { formErrors } from '../../api/errors';
import { useMutation, useQuery } from '../../api/hooks';
import { namespaces as api, type Namespace, type NamespaceInput } from '../../api/namespaces';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { FormError, TextAreaField } from '../../components/field';
import { NameKeyFields, useKeyFromName } from '../../components/name-key-fields';
import { Page } from '../../components/page';
import { LoadError, Loading } from '../../components/states';
import { useToast } from '../../components/toast';
import { paths, useRouteParam } from '../../routes/paths';
import { useNamespaces } from '../../session/namespaces';
import { useAccess } from '../../session/access';

/** The API's field names this form shows errors beside. */
const FIELDS = ['key', 'name', 'description'] as const;

export function NamespaceNewScreen() {
  return (
    <Page title="New namespace">
      <NamespaceForm />
    </Page>
  );
}

export function NamespaceEditScreen() {
  const key = useRouteParam('key');
  const query = useQuery(() => api.get(key), [key]);
  return (
    <Page title={`Namespace ${key}`}>
      {query.loading ? <Loading /> : query.error ? <LoadError error={query.error} retry={query.reload} /> : <NamespaceForm existing={query.data} />}
    </Page>
  );
}

/**
 * Create (no `existing`) or edit. The key is proposed from the name until the user types one,
 * and cannot change once created (Flipt has no rename). Validation is the server's: its
 * messages come back beside the field they name.
 */
function NamespaceForm({ existing }: { existing?: Namespace }) {
  const [, navigate] = useLocation();
  const toast = useToast();
  const { reload } = useNamespaces();
  // Creating one needs the admin role everywhere; editing or deleting one, the admin role in it.
  const access = useAccess('admin', existing?.key);
  const nameKey = useKeyFromName(existing);
  const [description, setDescription] = useState(existing?.description ?? '');
  const [deleting, setDeleting] = useState(false);

  const save = useMutation((input: NamespaceInput) => (existing ? api.update(existing.key, { name: input.name, description: input.description }) : api.create(input)));
  const errors = formErrors(save.error, FIELDS);

  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await save.run({ key: nameKey.key, name: nameKey.name, description });
    if (!saved) return;
    reload();
    toast.success(existing ? `Namespace ${saved.key} saved` : `Namespace ${saved.key} created`);
    navigate(paths.namespaces);
  };

  return (
    <form class="form" onSubmit={submit} noValidate>
      <FormError message={errors.form} />
      <NameKeyFields
        nameKey={nameKey}
        errors={errors.fields}
        keyHint={existing ? 'A namespace key cannot change.' : 'Letters, digits, "-", "_" and ","; used in API paths.'}
        keyFixed={existing !== undefined}
        readOnly={!access.allowed}
      />
      <TextAreaField label="Description" name="description" value={description} error={errors.fields.description} onValue={setDescription} />
      <div class="form-actions">
        <button type="submit" class="button button-primary" disabled={save.busy || !access.allowed} title={access.reason ?? undefined}>
          {save.busy ? 'Saving…' : existing ? 'Save' : 'Create'}
        </button>
        <Link href={paths.namespaces} class="button">
          Cancel
        </Link>
        {existing && !existing.protected && access.allowed && (
          <button type="button" class="button button-danger-quiet push-end" onClick={() => setDeleting(true)}>
            Delete namespace
          </button>
        )}
      </div>
      {existing && (
        <ConfirmDialog
          open={deleting}
          title="Delete namespace?"
          confirmLabel="Delete"
          danger
          onConfirm={async () => {
            await api.delete(existing.key);
            reload();
            toast.success(`Namespace ${existing.key} deleted`);
            navigate(paths.namespaces);
          }}
          onClose={() => setDeleting(false)}
        >
          <p>
            Namespace <strong class="mono">{existing.key}</strong> can be deleted only once it holds no flags. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </form>
  );
}
