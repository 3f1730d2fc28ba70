import type { Tx } from '../transaction';

/**
 * How the store runs a query called from outside a transaction (inside one, every query runs in
 * it): a `read` as it is, with no transaction of its own (one statement, or reads that need no
 * common snapshot); a `snapshotRead` in one read transaction at the dialect's snapshot isolation
 * (the evaluation model, which must match the revision it reads first); a `write` in one write
 * transaction, retried whole on a retryable conflict, its changes announced after it commits.
 */
export type QueryKind = 'read' | 'snapshotRead' | 'write';

/** A query: its transaction first, then the store port's arguments; tagged with how it runs. */
export type Query<A extends unknown[] = never[], R = unknown> = ((tx: Tx, ...args: A) => Promise<R>) & { readonly kind: QueryKind };

const tagged =
  (kind: QueryKind) =>
  <A extends unknown[], R>(query: (tx: Tx, ...args: A) => Promise<R>): Query<A, R> =>
    Object.assign(query, { kind });

export const read = tagged('read');
export const snapshotRead = tagged('snapshotRead');
export const write = tagged('write');
