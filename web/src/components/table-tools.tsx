import { useMemo, useState } from 'preact/hooks';

/**
 * Client-side sorting and paging for a management table (Flipt's lists sort and page in the
 * browser too: the API returns whole lists to the dashboard, api/pages.ts).
 *
 *   const table = useTable(shown, { columns: { key: (s) => s.key, created: (s) => Date.parse(s.createdAt) }, initial: { by: 'key', dir: 'asc' } });
 *   <SortHeader label="Key" by="key" table={table} /> … {table.rows.map(…)} … <Pager table={table} noun="segments" />
 *
 * Call `table.setPage(0)` when the rows change for another reason (a new search).
 */
export type SortDir = 'asc' | 'desc';
export interface Sort<K extends string> {
  by: K;
  dir: SortDir;
}

export interface Table<T, K extends string> {
  /** The rows of the current page, sorted. */
  rows: T[];
  sort: Sort<K>;
  /** Sorts by a column (back to the first page); the same column again reverses the order. */
  toggle(by: K): void;
  page: number;
  pages: number;
  total: number;
  pageSize: number;
  setPage(page: number): void;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

export function useTable<T, K extends string>(
  all: T[],
  options: { columns: Record<K, (row: T) => string | number>; initial: Sort<K>; pageSize?: number },
): Table<T, K> {
  const pageSize = options.pageSize ?? 20;
  const [sort, setSort] = useState<Sort<K>>(options.initial);
  const [page, setPage] = useState(0);
  const sorted = useMemo(() => {
    const value = options.columns[sort.by];
    const sign = sort.dir === 'asc' ? 1 : -1;
    return [...all].sort((a, b) => {
      const x = value(a);
      const y = value(b);
      const order = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
      return sign * order;
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- columns are static per table
  }, [all, sort]);
  const pages = Math.max(1, Math.ceil(sorted.length / pageSize));
  const current = Math.min(page, pages - 1);
  return {
    rows: sorted.slice(current * pageSize, (current + 1) * pageSize),
    sort,
    toggle: (by) => {
      setSort((s) => (s.by === by ? { by, dir: s.dir === 'asc' ? 'desc' : 'asc' } : { by, dir: 'asc' }));
      setPage(0);
    },
    page: current,
    pages,
    total: sorted.length,
    pageSize,
    setPage,
  };
}

/** A column header that sorts its table: a button (keyboard operable) and `aria-sort` on the cell. */
export function SortHeader<K extends string>({ label, by, table }: { label: string; by: K; table: Pick<Table<unknown, K>, 'sort' | 'toggle'> }) {
  const active = table.sort.by === by;
  const ascending = table.sort.dir === 'asc';
  return (
    <th scope="col" aria-sort={active ? (ascending ? 'ascending' : 'descending') : 'none'}>
      <button type="button" class="sort-button" onClick={() => table.toggle(by)}>
        {label}
        <span class={active ? 'sort-mark sort-mark-active' : 'sort-mark'} aria-hidden="true">
          {active ? (ascending ? '▲' : '▼') : '↕'}
        </span>
      </button>
    </th>
  );
}

/** "21–40 of 45" with previous/next; nothing when everything fits on one page. */
export function Pager({ table, noun }: { table: Pick<Table<unknown, string>, 'page' | 'pages' | 'total' | 'pageSize' | 'setPage'>; noun: string }) {
  if (table.pages <= 1) return null;
  const from = table.page * table.pageSize + 1;
  const to = Math.min(table.total, (table.page + 1) * table.pageSize);
  return (
    <nav class="pager" aria-label={`Pages of ${noun}`}>
      <span class="muted">
        {from}–{to} of {table.total} {noun}
      </span>
      <button type="button" class="button button-small" disabled={table.page === 0} onClick={() => table.setPage(table.page - 1)}>
        Previous
      </button>
      <span aria-live="polite">
        Page {table.page + 1} of {table.pages}
      </span>
      <button type="button" class="button button-small" disabled={table.page >= table.pages - 1} onClick={() => table.setPage(table.page + 1)}>
        Next
      </button>
    </nav>
  );
}
