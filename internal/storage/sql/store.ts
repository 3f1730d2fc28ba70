import type { AuditOrigin } from '../../core';
import type { Change, ChangeListener, Store } from '../types';
import { AUDITED } from './audit-log';
import { isDeadlineExceeded } from './dialects/deadline';
import { translateError } from './errors';
import { QUERIES, type Query } from './queries';
import { ChangeRecorder, inTransaction, txOn, type SqlDatabase, type TransactionKind, type Tx } from './transaction';

/** The SQL store: the store port plus what tests and metrics read of it. */
export interface SqlStore extends Store {
  /** Transactions run again after a retryable conflict, since this store was made. */
  readonly retries: number;
  /**
   * What a driver error means in the domain (public so that the mapping can be checked against
   * each real database's errors).
   */
  translate(err: unknown): Error;
}

type Queries = typeof QUERIES;
/** Each query as the port's method: the same arguments, without the transaction. */
type BoundQueries = { [K in keyof Queries]: Queries[K] extends Query<infer A, infer R> ? (...args: A) => Promise<R> : never };

// Fails to compile, naming it, when a resource file exports something that is not a port method.
type NotInPort = Exclude<keyof Queries, keyof Store>;
const everyQueryIsAPortMethod: [NotInPort] extends [never] ? true : NotInPort = true;

type AnyQuery = ((tx: Tx, ...args: unknown[]) => Promise<unknown>) & Pick<Query, 'kind'>;
const QUERY_LIST = Object.entries(QUERIES) as [string, AnyQuery][];

/** Writes that keep the audit trail itself: not changes anybody made. */
const AUDIT_BOOKKEEPING = new Set(['deleteAuditEventsBefore', 'acquireAuditLease', 'releaseAuditLease', 'acknowledgeAuditDeliveries', 'deferAuditDelivery']);
type AuditWrap = (tx: Tx, args: unknown[], run: () => Promise<unknown>) => Promise<unknown>;
const AUDIT_OF = AUDITED as Record<string, AuditWrap>;
for (const [name, query] of QUERY_LIST) {
  if (query.kind === 'write' && !AUDIT_OF[name] && !AUDIT_BOOKKEEPING.has(name)) throw new Error(`the write ${name} is not in the audit trail (storage/sql/audit-log.ts AUDITED)`);
}

/** A query that records its audit event(s) on the transaction it runs in. */
function audited(name: string, query: AnyQuery): AnyQuery {
  const wrap = AUDIT_OF[name];
  if (!wrap) return query;
  return Object.assign((tx: Tx, ...args: unknown[]) => wrap(tx, args, () => query(tx, ...args)), { kind: query.kind });
}
const AUDITED_QUERIES = QUERY_LIST.map(([name, query]) => [name, audited(name, query)] as const);

/**
 * The one SQL store, for every dialect, bound from the queries (queries/): each port method runs
 * its query on the current transaction, or — outside one — in a transaction of the kind the
 * query is tagged with, and translates what the driver throws into the domain's errors, so no
 * SQL text or driver detail ever reaches a client. Listeners hear of a namespace's change once
 * its transaction has committed.
 */
export function createSqlStore(database: SqlDatabase): SqlStore {
  const listeners = new Set<ChangeListener>();
  let retries = 0;
  // Reads that need no transaction run on the database itself; a write there would be refused.
  const outsideTransaction = txOn(database, database.root, new ChangeRecorder(false));
  const translate = (err: unknown) => translateError(database.dialect, err);
  const { breaker } = database;
  const announce = (change: Change) => {
    for (const listener of listeners) listener(change);
  };
  const auditListeners = new Set<(events: number) => void>();
  const announceAudited = (events: number) => {
    for (const listener of auditListeners) listener(events);
  };

  async function transaction<T>(kind: TransactionKind, fn: (tx: Tx) => Promise<T>, origin: AuditOrigin | undefined): Promise<T> {
    const { result, changes, audited } = await inTransaction(database, kind, fn, () => retries++, origin);
    for (const change of changes.all()) announce(change);
    if (audited > 0) announceAudited(audited);
    return result;
  }

  /** The port on `current`, or (null) outside any transaction; writes recorded as `origin`'s. */
  function storeOn(current: Tx | null, origin?: AuditOrigin): SqlStore {
    const run = async <T>(body: () => Promise<T>): Promise<T> => {
      breaker?.check(); // throws the breaker's own Unavailable: no probe to hasten
      try {
        const result = await body();
        breaker?.answered();
        return result;
      } catch (err) {
        if (breaker && (isDeadlineExceeded(err) || database.dialect.isConnectionError(err))) breaker.suspect();
        throw translate(err);
      }
    };
    const call = (query: AnyQuery) => (...args: unknown[]) =>
      run(() => {
        if (current) return query(current, ...args);
        if (query.kind === 'read') return query(outsideTransaction, ...args);
        return transaction(query.kind === 'write' ? 'write' : 'snapshot', (tx) => query(tx, ...args), origin);
      });
    const methods = Object.fromEntries(AUDITED_QUERIES.map(([name, query]) => [name, call(query)])) as BoundQueries;
    const store: SqlStore = {
      ...methods,
      get retries() {
        return retries;
      },
      translate,
      onChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      announce,
      onAudited(listener) {
        auditListeners.add(listener);
        return () => auditListeners.delete(listener);
      },
      announceAudited,
      transaction: (fn) => (current ? fn(store) : run(() => transaction('write', (tx) => fn(storeOn(tx, origin)), origin))),
      readConsistently: (fn) => (current ? fn(store) : run(() => transaction('snapshot', (tx) => fn(storeOn(tx)), undefined))),
      // Inside a transaction its recorder already holds the transaction's origin.
      as: (next) => (current ? store : storeOn(null, next)),
      close: () => database.root.destroy(),
    };
    return store;
  }

  return storeOn(null);
}
