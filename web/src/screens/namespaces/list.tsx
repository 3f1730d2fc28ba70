import { useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { namespaces as api, type Namespace } from '../../api/namespaces';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Page } from '../../components/page';
import { Empty, LoadError, Loading } from '../../components/states';
import { Headers, RowActions, Table } from '../../components/table';
import { SearchBox } from '../../components/table-tools';
import { useToast } from '../../components/toast';
import { formatDate } from '../../lib/format';
import { paths } from '../../routes/paths';
import { useNamespaces } from '../../session/namespaces';
import { can } from '../../session/permissions';
import { useSession } from '../../session/session';

/** All namespaces, with search; each row links to its editor and can be deleted (not `default`). */
export function NamespacesListScreen() {
  const { list, loading, error, reload } = useNamespaces();
  const { readOnly, grants } = useSession();
  const toast = useToast();
  const [search, setSearch] = useState('');
  const [doomed, setDoomed] = useState<Namespace | null>(null);
  // The switcher's list may be minutes old (another user, the CLI): a management table shows it fresh.
  useEffect(reload, []);

  const needle = search.trim().toLowerCase();
  const shown = needle === '' ? list : list.filter((n) => `${n.key} ${n.name} ${n.description}`.toLowerCase().includes(needle));
  // A namespace is created by an admin of every namespace, deleted by an admin of it.
  const mayDelete = (ns: string) => !readOnly && can(grants, 'admin', ns);
  const actions = readOnly || !can(grants, 'admin') ? undefined : (
    <Link href={paths.newNamespace} class="button button-primary">
      New namespace
    </Link>
  );

  return (
    <Page title="Namespaces" actions={actions}>
      {loading && list.length === 0 ? (
        <Loading />
      ) : error ? (
        <LoadError error={error} retry={reload} />
      ) : (
        <>
          <SearchBox label="Search namespaces" placeholder="Search namespaces" value={search} onValue={setSearch} />
          {shown.length === 0 ? (
            <Empty title={needle ? 'No namespace matches.' : 'No namespaces yet.'} />
          ) : (
            <Table head={<Headers labels={['Key', 'Name', 'Description', 'Created', 'Updated']} actions />}>
              {shown.map((n) => (
                <tr key={n.key} data-key={n.key}>
                  <td>
                    <Link href={paths.namespace(n.key)} class="mono">
                      {n.key}
                    </Link>
                  </td>
                  <td>{n.name}</td>
                  <td class="muted">{n.description}</td>
                  <td class="nowrap">{formatDate(n.createdAt)}</td>
                  <td class="nowrap">{formatDate(n.updatedAt)}</td>
                  <RowActions name={`namespace ${n.key}`} readOnly={!mayDelete(n.key) || n.protected} onDelete={() => setDoomed(n)} />
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
      <ConfirmDialog
        open={doomed !== null}
        title="Delete namespace?"
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await api.delete(doomed!.key);
          toast.success(`Namespace ${doomed!.key} deleted`);
          reload();
        }}
        onClose={() => setDoomed(null)}
      >
        <p>
          Namespace <strong class="mono">{doomed?.key}</strong> can be deleted only once it holds no flags. This cannot be undone.
        </p>
      </ConfirmDialog>
    </Page>
  );
}
