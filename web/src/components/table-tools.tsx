import { useMemo, useState } from 'preact/hooks';

/**
 * Client-side search, sorting and paging for a management table (Flipt's lists do them in the
 * browser too: the API returns whole lists to the dashboard, api/pages.ts). The table's markup is
 * components/table.tsx.
 *
 *   const shown = useMemo(() => matchingWords(all, search), [all, search]);
 *   const table = useTable(shown, { columns: { key: (s) => s.key, created: (s) => Date.parse(s.createdAt) }, initial: { by: 'key', dir: 'asc' } });
 *   <SearchBox label="Search segments" … /> <SortHeaders columns={[{ by: 'key', label: 'Key' }, …]} table={table} /> … {table.rows.map(…)} … <Pager table={table} noun="segments" />
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

/** A SortHeader for each column, in the order given. */
export function SortHeaders<K extends string>({ columns, table }: { columns: { by: K; label: string }[]; table: Pick<Table<unknown, K>, 'sort' | 'toggle'> }) {
  return (
    <>
      {columns.map((c) => (
        <SortHeader key={c.by} label={c.label} by={c.by} table={table} />
      ))}
    </>
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

/** The rows whose key, name or description holds every word of `search` (any case, any order). */
export function matchingWords<T extends { key: string; name: string; description: string }>(rows: T[], search: string): T[] {
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return rows;
  return rows.filter((row) => {
    const text = `${row.key}\n${row.name}\n${row.description}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/** The search field above a table (`label` names it for assistive technology). */
export function SearchBox({ label, placeholder, value, onValue }: { label: string; placeholder: string; value: string; onValue: (value: string) => void }) {
  return (
    <div class="toolbar">
      <input type="search" class="search" placeholder={placeholder} aria-label={label} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
    </div>
  );
}
