import { sql as rawSql, type CompiledQuery, type IsolationLevel } from 'kysely';
import type { Clock } from '../../core';
import type { ListParams } from '../types';
import type { Db } from './tables';

/** What differs between databases, kept to the minimum (error codes, isolation, retries). */
export interface DialectAdapter {
  readonly name: 'sqlite' | 'postgres' | 'mysql' | 'cockroach';
  isUniqueViolation(err: unknown): boolean;
  isForeignKeyViolation(err: unknown): boolean;
  /** The database cannot be reached or the connection broke. */
  isConnectionError(err: unknown): boolean;
  /**
   * A value the database cannot hold at all (PostgreSQL refuses NUL characters in text; MySQL
   * in strict mode refuses an over-long value): the request is invalid, not the server broken.
   */
  isInvalidValue?(err: unknown): boolean;
  /**
   * The transaction lost a conflict (serialization failure, deadlock) and may simply be run
   * again: the store retries the whole transaction a few times (TRANSACTION_ATTEMPTS).
   */
  isRetryable?(err: unknown): boolean;
  /** Isolation of write transactions; unset: the database's default. */
  readonly writeIsolation?: IsolationLevel;
  /**
   * Isolation of the evaluation model's multi-query reads, which must see one snapshot that
   * matches the revision they read first; unset: the database's default (SQLite's is one).
   */
  readonly snapshotIsolation?: IsolationLevel;
  /** A driver-level way to read rows as arrays, where the driver has one. */
  arrayRows?(query: CompiledQuery): unknown[][];
}

/** What every store function receives: where to run SQL, and how. */
export interface SqlContext {
  db: Db;
  clock: Clock;
  dialect: DialectAdapter;
  /**
   * Runs `fn` in a transaction (or the current one) after bumping the namespace's revision.
   * The bump is the first statement so that, on databases with row locks, it also serialises
   * every write to one namespace: ranks and uniqueness checks cannot interleave. The scope
   * names the flag or segment written (none: anything in the namespace), so that evaluation
   * snapshots can be patched instead of rebuilt.
   */
  write<T>(scope: WriteScope, fn: (tx: SqlContext, namespaceExists: boolean) => Promise<T>): Promise<T>;
  /** Records a namespace's creation (it does not go through `write`). */
  created(ns: string, revision: string): void;
  /**
   * Runs a compiled query and returns its rows as arrays, in column order: for the bulk reads
   * of the evaluation model, where building an object per row is most of the cost.
   */
  rows(query: CompiledQuery): Promise<unknown[][]>;
}

export interface WriteScope {
  ns: string;
  flag?: string;
  segment?: string;
}

/** Moves the namespace's revision on; returns the revisions around the bump, or null if there is no such namespace. */
export async function bumpRevision(db: Db, ns: string): Promise<{ before: string; after: string } | null> {
  const result = await db
    .updateTable('namespaces')
    .set({ revision: rawSql`revision + 1` })
    .where('key', '=', ns)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return null;
  const row = await db.selectFrom('namespaces').select(['revision', 'created_at']).where('key', '=', ns).executeTakeFirstOrThrow();
  return { before: `${row.created_at}:${Number(row.revision) - 1}`, after: `${row.created_at}:${row.revision}` };
}

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
