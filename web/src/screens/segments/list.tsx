import { useMemo, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { useQuery } from '../../api/hooks';
import { matchTypeLabel, segments as api } from '../../api/segments';
import type { Segment } from '../../api/types';
import { Page } from '../../components/page';
import { Empty, LoadError, Loading } from '../../components/states';
import { Table } from '../../components/table';
import { matchingWords, Pager, SearchBox, SortHeaders, useTable } from '../../components/table-tools';
import { formatDate } from '../../lib/format';
import { paths } from '../../routes/paths';
import { useLiveRefresh } from '../../session/live';
import { useCurrentNamespace } from '../../session/namespaces';
import { useWritable } from '../../session/access';

const COLUMNS = {
  key: (s: Segment) => s.key,
  name: (s: Segment) => s.name,
  matchType: (s: Segment) => s.matchType,
  description: (s: Segment) => s.description,
  created: (s: Segment) => Date.parse(s.createdAt) || 0,
  updated: (s: Segment) => Date.parse(s.updatedAt) || 0,
};

const HEADERS: { by: keyof typeof COLUMNS; label: string }[] = [
  { by: 'key', label: 'Key' },
  { by: 'name', label: 'Name' },
  { by: 'matchType', label: 'Match type' },
  { by: 'description', label: 'Description' },
  { by: 'created', label: 'Created' },
  { by: 'updated', label: 'Updated' },
];

/**
 * The namespace's segments: search, sort by any column, pages of 20; each key opens the segment.
 * Live: read again whenever the namespace moves (its event stream names flags, not segments).
 */
export function SegmentsListScreen() {
  const ns = useCurrentNamespace();
  // No changes offered when the role (or a read-only instance) forbids them: session/access.ts.
  const readOnly = !useWritable(ns).allowed;
  const query = useQuery(() => api.list(ns), [ns]);
  useLiveRefresh(query);
  const [search, setSearch] = useState('');
  const shown = useMemo(() => matchingWords(query.data ?? [], search), [query.data, search]);
  const table = useTable(shown, { columns: COLUMNS, initial: { by: 'key', dir: 'asc' } });
  const newSegment = readOnly ? null : (
    <Link href={paths.newSegment(ns)} class="button button-primary">
      New segment
    </Link>
  );

  let body;
  if (query.loading && !query.data) body = <Loading label="Loading segments…" />;
  else if (query.error && !query.data) body = <LoadError error={query.error} retry={query.reload} />;
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
        <SearchBox
          label="Search segments"
          placeholder="Search segments"
          value={search}
          onValue={(value) => {
            setSearch(value);
            table.setPage(0);
          }}
        />
        {shown.length === 0 ? (
          <Empty title="No segment matches." />
        ) : (
          <Table label={`Segments in ${ns}`} head={<SortHeaders columns={HEADERS} table={table} />}>
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
          </Table>
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
