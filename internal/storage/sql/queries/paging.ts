import type { ListParams } from '../../types';

/**
 * Cuts the extra row fetched by `paged` and describes the next page: its offset and the key
 * (or id) of its first item, which Flipt puts in the page token.
 */
export function pageOf<T>(
  rows: T[],
  params: ListParams,
  keyOf: (row: T) => string,
): { items: T[]; next: { offset: number; key: string } | null } {
  if (params.limit > 0 && rows.length > params.limit) {
    return { items: rows.slice(0, params.limit), next: { offset: params.offset + params.limit, key: keyOf(rows[params.limit]) } };
  }
  return { items: rows, next: null };
}

/** LIMIT/OFFSET for a page: one extra row tells whether another page follows. */
export function paged<Q extends { limit(n: number): Q; offset(n: number): Q }>(query: Q, params: ListParams): Q {
  // Some databases need a LIMIT before an OFFSET; "all" is the largest int32.
  const limited = query.limit(params.limit > 0 ? params.limit + 1 : 2147483647);
  return params.offset > 0 ? limited.offset(params.offset) : limited;
}
