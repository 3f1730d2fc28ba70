import { useState } from 'preact/hooks';
import type { Authentication } from '../../api/auth';
import { useQuery } from '../../api/hooks';
import { TOKEN_METADATA, tokens as api } from '../../api/tokens';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Page } from '../../components/page';
import { Empty, LoadError, Loading } from '../../components/states';
import { Headers, RowActions, Table } from '../../components/table';
import { useToast } from '../../components/toast';
import { formatDate } from '../../lib/format';
import { useAccess } from '../../session/access';
import { useSession } from '../../session/session';
import { CreateTokenDialog } from './create';

const nameOf = (a: Authentication) => a.metadata[TOKEN_METADATA.name] ?? '';

/**
 * The server's API client tokens (the token method's authentications): name, description,
 * namespace scope, expiry, creation. Select several to delete them at once, or delete one; the
 * token this dashboard itself uses is marked, and deleting it logs the dashboard out.
 */
export function TokensScreen() {
  // Token management is the admin role's, in every namespace; read-only flag storage does not stop it.
  const access = useAccess('admin', undefined, { storage: false });
  if (!access.allowed)
    return (
      <Page title="API tokens">
        <p class="banner banner-role" role="note" data-testid="role-banner">
          Managing API tokens needs the admin role. Ask an admin of this Pennon for a token, or for the role.
        </p>
      </Page>
    );
  return <TokenList />;
}

function TokenList() {
  const session = useSession();
  const toast = useToast();
  const query = useQuery(() => api.list(), []);
  const method = useQuery(() => api.methodEnabled(), []);
  // Which row is this browser's own token (a session's authentication is not a token: none).
  const ownId = session.self?.id ?? null;
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [doomed, setDoomed] = useState<Authentication[]>([]);
  const [creating, setCreating] = useState(false);

  const list = query.data ?? [];
  const picked = list.filter((a) => selected.has(a.id));
  const allPicked = list.length > 0 && picked.length === list.length;
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const now = Date.now();

  const actions =
    method.data === true ? (
      <button type="button" class="button button-primary" onClick={() => setCreating(true)}>
        New token
      </button>
    ) : undefined;

  return (
    <Page title="API tokens" actions={actions}>
      {method.data === false && (
        <p class="banner token-note" role="note">
          This server does not create tokens: the token method is off (<code>authentication.methods.token.enabled</code>). Existing tokens can still be deleted.
        </p>
      )}
      {session.meta && !session.meta.authentication.required && (
        <p class="banner token-note" role="note">
          Authentication is not required on this instance (<code>authentication.required</code>): requests are accepted with or without a token. Tokens take effect once it is.
        </p>
      )}
      {query.loading && !query.data ? (
        <Loading label="Loading tokens…" />
      ) : query.error ? (
        <LoadError error={query.error} retry={query.reload} />
      ) : list.length === 0 ? (
        <Empty title="No API tokens yet.">
          <p>Clients (SDKs, the CLI, CI jobs) authenticate with a token when authentication is required.</p>
        </Empty>
      ) : (
        <>
          <div class="toolbar token-toolbar">
            <span class="muted" aria-live="polite">
              {picked.length === 0 ? `${list.length} ${list.length === 1 ? 'token' : 'tokens'}` : `${picked.length} selected`}
            </span>
            <button type="button" class="button button-small button-danger-quiet" disabled={picked.length === 0} onClick={() => setDoomed(picked)}>
              Delete selected{picked.length > 0 ? ` (${picked.length})` : ''}
            </button>
          </div>
          <Table
            label="API tokens"
            head={
              <>
                <th scope="col" class="token-check">
                  <input type="checkbox" aria-label="Select all tokens" checked={allPicked} onChange={() => setSelected(allPicked ? new Set() : new Set(list.map((a) => a.id)))} />
                </th>
                <Headers labels={['Name', 'Description', 'Namespace', 'Expires', 'Created']} actions />
              </>
            }
          >
            {list.map((a) => {
              const name = nameOf(a);
              const expired = a.expiresAt ? Date.parse(a.expiresAt) <= now : false;
              return (
                <tr key={a.id} data-id={a.id} class={selected.has(a.id) ? 'token-row-selected' : undefined}>
                  <td class="token-check">
                    <input type="checkbox" aria-label={`Select token ${name || a.id}`} checked={selected.has(a.id)} onChange={() => toggle(a.id)} />
                  </td>
                  <td>
                    {name || <span class="muted mono">{a.id}</span>}
                    {ownId === a.id && <span class="token-badge">this session</span>}
                  </td>
                  <td class="muted">{a.metadata[TOKEN_METADATA.description] ?? ''}</td>
                  <td>{a.metadata[TOKEN_METADATA.namespace] ? <span class="mono">{a.metadata[TOKEN_METADATA.namespace]}</span> : <span class="muted">all</span>}</td>
                  <td class="nowrap">{a.expiresAt ? <span class={expired ? 'token-expired' : undefined}>{(expired ? 'Expired ' : '') + formatDate(a.expiresAt)}</span> : <span class="muted">never</span>}</td>
                  <td class="nowrap">{formatDate(a.createdAt)}</td>
                  <RowActions name={`token ${name || a.id}`} onDelete={() => setDoomed([a])} />
                </tr>
              );
            })}
          </Table>
        </>
      )}

      <ConfirmDialog
        open={doomed.length > 0}
        title={doomed.length === 1 ? 'Delete token?' : `Delete ${doomed.length} tokens?`}
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          // One by one: a failure stops there, and the dialog says why (those before are gone).
          for (const a of doomed) await api.delete(a.id);
          toast.success(doomed.length === 1 ? `Token ${nameOf(doomed[0]) || doomed[0].id} deleted` : `${doomed.length} tokens deleted`);
          setSelected(new Set());
          query.reload();
        }}
        onClose={() => setDoomed([])}
      >
        <p>
          {doomed.length === 1 ? (
            <>
              Token <strong>{nameOf(doomed[0]) || doomed[0].id}</strong> stops working at once;
            </>
          ) : (
            <>These tokens stop working at once: {doomed.map((a) => nameOf(a) || a.id).join(', ')};</>
          )}{' '}
          clients using {doomed.length === 1 ? 'it' : 'them'} get 401 from then on. This cannot be undone.
        </p>
        {ownId && doomed.some((a) => a.id === ownId) && (
          <p class="token-warning" role="note">
            This dashboard is logged in with {doomed.length === 1 ? 'this' : 'one of these'} token{doomed.length === 1 ? '' : 's'}: you will be asked for another one.
          </p>
        )}
      </ConfirmDialog>

      <CreateTokenDialog
        open={creating}
        onCreated={query.reload}
        onClose={() => {
          setCreating(false);
          query.reload();
        }}
      />
    </Page>
  );
}
