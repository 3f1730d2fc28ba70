import { useMemo, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { useQuery } from '../../api/hooks';
import { matchTypeLabel, segments as api } from '../../api/segments';
import type { Segment } from '../../api/types';
import { Page } from '../../components/page';
import { Empty, LoadError, Loading } from '../../components/states';
import { Pager, SortHeader, useTable } from '../../components/table-tools';
import { formatDate } from '../../lib/format';
import { paths } from '../../routes/paths';
import { useCurrentNamespace } from '../../session/namespaces';
import { useSession } from '../../session/session';

const COLUMNS = {
  key: (s: Segment) => s.key,
  name: (s: Segment) => s.name,
  matchType: (s: Segment) => s.matchType,
  description: (s: Segment) => s.description,
  created: (s: Segment) => Date.parse(s.createdAt) || 0,
  updated: (s: Segment) => Date.parse(s.updatedAt) || 0,
};

/** Segments whose key, name or description holds every word of the search (any case). */
function matching(list: Segment[], search: string): Segment[] {
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return list;
  return list.filter((s) => {
    const text = `${s.key}\n${s.name}\n${s.description}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/** The namespace's segments: search, sort by any column, pages of 20; each key opens the segment. */
export function SegmentsListScreen() {
  const ns = useCurrentNamespace();
  const { readOnly } = useSession();
  const query = useQuery(() => api.list(ns), [ns]);
  const [search, setSearch] = useState('');
  const shown = useMemo(() => matching(query.data ?? [], search), [query.data, search]);
  const table = useTable(shown, { columns: COLUMNS, initial: { by: 'key', dir: 'asc' } });
  const newSegment = readOnly ? null : (
    <Link href={paths.newSegment(ns)} class="button button-primary">
      New segment
    </Link>
  );

  let body;
  if (query.loading && !query.data) body = <Loading label="Loading segments…" />;
  else if (query.error) body = <LoadError error={query.error} retry={query.reload} />;
  else if ((query.data ?? []).length === 0)
    body = (
      <Empty title="No segments yet.">
        <p>A segment is a group of entities, picked by constraints on their context (country is "FR", plan is one of …). Rules and rollouts target segments.</p>
        {newSegment}
      </Empty>
    );
  else
    body = (
      <>
        <div class="toolbar">
          <input
            type="search"
            class="search"
            placeholder="Search segments"
            aria-label="Search segments"
            value={search}
            onInput={(e) => {
              setSearch(e.currentTarget.value);
              table.setPage(0);
            }}
          />
        </div>
        {shown.length === 0 ? (
          <Empty title="No segment matches." />
        ) : (
          <div class="table-wrap">
            <table class="table" aria-label={`Segments in ${ns}`}>
              <thead>
                <tr>
                  <SortHeader label="Key" by="key" table={table} />
                  <SortHeader label="Name" by="name" table={table} />
                  <SortHeader label="Match type" by="matchType" table={table} />
                  <SortHeader label="Description" by="description" table={table} />
                  <SortHeader label="Created" by="created" table={table} />
                  <SortHeader label="Updated" by="updated" table={table} />
                </tr>
              </thead>
              <tbody>
                {table.rows.map((s) => (
                  <tr key={s.key} data-key={s.key}>
                    <td>
                      <Link href={paths.segment(ns, s.key)} class="mono">
                        {s.key}
                      </Link>
                    </td>
                    <td>{s.name}</td>
                    <td>
                      <span class="segment-match">{matchTypeLabel(s.matchType)}</span>
                    </td>
                    <td class="muted">{s.description}</td>
                    <td class="nowrap">{formatDate(s.createdAt)}</td>
                    <td class="nowrap">{formatDate(s.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager table={table} noun="segments" />
      </>
    );

  return (
    <Page title="Segments" actions={(query.data ?? []).length > 0 ? newSegment : undefined}>
      {body}
    </Page>
  );
}
