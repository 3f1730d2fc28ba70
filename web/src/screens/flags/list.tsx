import { useMemo, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { flags as api } from '../../api/flags';
import { useQuery } from '../../api/hooks';
import type { Flag } from '../../api/types';
import { Page } from '../../components/page';
import { Pager, SortHeader, useTable } from '../../components/table-tools';
import { Empty, LoadError, Loading } from '../../components/states';
import { formatDate } from '../../lib/format';
import { paths } from '../../routes/paths';
import { useCurrentNamespace } from '../../session/namespaces';
import { useSession } from '../../session/session';
import { EnabledBadge, TypeBadge } from './badges';
import { FLAG_COLUMNS, filterFlags, HEADERS } from './table';

/** Flipt's "Flags" table: search, sortable columns, pages of 20, each row linking to its flag. */
export function FlagsListScreen() {
  const ns = useCurrentNamespace();
  const { readOnly } = useSession();
  const query = useQuery(() => api.list(ns), [ns]);
  const [search, setSearch] = useState('');
  const all = query.data ?? [];
  const shown = useMemo(() => filterFlags(all, search), [all, search]);
  const table = useTable(shown, { columns: FLAG_COLUMNS, initial: { by: 'key', dir: 'asc' } });

  const newFlag = readOnly ? undefined : (
    <Link href={paths.newFlag(ns)} class="button button-primary">
      New flag
    </Link>
  );

  let body;
  if (query.loading && !query.data) body = <Loading label="Loading flags…" />;
  else if (query.error) body = <LoadError error={query.error} retry={query.reload} />;
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
        <div class="toolbar">
          <input
            type="search"
            class="search"
            placeholder="Search key, name, description"
            aria-label="Search flags"
            value={search}
            onInput={(e) => {
              setSearch(e.currentTarget.value);
              table.setPage(0);
            }}
          />
        </div>
        {shown.length === 0 ? (
          <Empty title="No flag matches this search." />
        ) : (
          <>
            <div class="table-wrap">
              <table class="table flags-table">
                <thead>
                  <tr>
                    {HEADERS.map((h) => (
                      <SortHeader key={h.by} label={h.label} by={h.by} table={table} />
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {table.rows.map((f) => (
                    <FlagRow key={f.key} ns={ns} flag={f} />
                  ))}
                </tbody>
              </table>
            </div>
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
