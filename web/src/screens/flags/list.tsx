import { useMemo, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { flags as api } from '../../api/flags';
import { useQuery } from '../../api/hooks';
import type { Flag } from '../../api/types';
import { Page } from '../../components/page';
import { Empty, LoadError, Loading } from '../../components/states';
import { Table } from '../../components/table';
import { matchingWords, Pager, SearchBox, SortHeaders, useTable } from '../../components/table-tools';
import { formatDate } from '../../lib/format';
import { paths } from '../../routes/paths';
import { touchesAnyFlag, useLiveRefresh } from '../../session/live';
import { useCurrentNamespace } from '../../session/namespaces';
import { useWritable } from '../../session/access';
import { EnabledBadge, TypeBadge } from './badges';

const COLUMNS = {
  key: (f: Flag) => f.key,
  name: (f: Flag) => f.name,
  description: (f: Flag) => f.description,
  enabled: (f: Flag) => (f.enabled ? 1 : 0),
  type: (f: Flag) => f.type,
  created: (f: Flag) => Date.parse(f.createdAt) || 0,
  updated: (f: Flag) => Date.parse(f.updatedAt) || 0,
};

const HEADERS: { by: keyof typeof COLUMNS; label: string }[] = [
  { by: 'key', label: 'Key' },
  { by: 'name', label: 'Name' },
  { by: 'description', label: 'Description' },
  { by: 'enabled', label: 'Evaluation' },
  { by: 'type', label: 'Type' },
  { by: 'created', label: 'Created' },
  { by: 'updated', label: 'Updated' },
];

/**
 * Flipt's "Flags" table: search (every word in the key, name or description), sortable columns,
 * pages of 20 — in the browser, as Flipt's UI does: the list is loaded whole — each row linking
 * to its flag. Live: a flag created, changed or deleted elsewhere shows here as it happens.
 */
export function FlagsListScreen() {
  const ns = useCurrentNamespace();
  // No changes offered when the role (or a read-only instance) forbids them: session/access.ts.
  const readOnly = !useWritable(ns).allowed;
  const query = useQuery(() => api.list(ns), [ns]);
  useLiveRefresh(query, touchesAnyFlag);
  const [search, setSearch] = useState('');
  const all = query.data ?? [];
  const shown = useMemo(() => matchingWords(all, search), [all, search]);
  const table = useTable(shown, { columns: COLUMNS, initial: { by: 'key', dir: 'asc' } });

  const newFlag = readOnly ? undefined : (
    <Link href={paths.newFlag(ns)} class="button button-primary">
      New flag
    </Link>
  );

  let body;
  if (query.loading && !query.data) body = <Loading label="Loading flags…" />;
  else if (query.error && !query.data) body = <LoadError error={query.error} retry={query.reload} />;
  else if (all.length === 0)
    body = (
      <Empty title={`No flags in namespace ${ns} yet.`}>
        <p>A flag turns a feature on or off, or picks a variant, without a deploy.</p>
        <p>New here? <Link href={paths.gettingStarted(ns)}>Getting started</Link> walks from a first flag to an evaluated answer.</p>
        {newFlag}
      </Empty>
    );
  else
    body = (
      <>
        <SearchBox
          label="Search flags"
          placeholder="Search key, name, description"
          value={search}
          onValue={(value) => {
            setSearch(value);
            table.setPage(0);
          }}
        />
        {shown.length === 0 ? (
          <Empty title="No flag matches this search." />
        ) : (
          <>
            <Table class="flags-table" head={<SortHeaders columns={HEADERS} table={table} />}>
              {table.rows.map((f) => (
                <FlagRow key={f.key} ns={ns} flag={f} />
              ))}
            </Table>
            <Pager table={table} noun="flags" />
          </>
        )}
      </>
    );

  return (
    <Page title="Flags" actions={all.length > 0 ? newFlag : undefined}>
      {body}
    </Page>
  );
}

function FlagRow({ ns, flag }: { ns: string; flag: Flag }) {
  return (
    <tr data-key={flag.key}>
      <td class="nowrap">
        <Link href={paths.flag(ns, flag.key)} class="mono">
          {flag.key}
        </Link>
      </td>
      <td>{flag.name}</td>
      <td class="muted flags-description">{flag.description}</td>
      <td>
        <EnabledBadge enabled={flag.enabled} />
      </td>
      <td>
        <TypeBadge type={flag.type} />
      </td>
      <td class="nowrap">{formatDate(flag.createdAt)}</td>
      <td class="nowrap">{formatDate(flag.updatedAt)}</td>
    </tr>
  );
}
