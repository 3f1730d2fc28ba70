import { setTimeout as sleep } from 'node:timers/promises';
import type { CompiledQuery, Kysely } from 'kysely';
import { internal, type AuditOrigin, type Clock } from '../../core';
import type { Change } from '../types';
import type { DatabaseBreaker } from './breaker';
import type { DialectAdapter } from './dialects/adapter';
import type { Database, Db } from './tables';
import { logChanges } from './change-log';
import { AuditRecorder, writeAuditEvents, type AuditSinkSelection } from './audit-recorder';

/** How many times a transaction runs before a retryable conflict is reported (as Unavailable). */
export const TRANSACTION_ATTEMPTS = 8;

/**
 * The window the pause after a lost conflict is drawn from (full jitter): it doubles with each
 * attempt, starting from how long the losing attempt ran (at least 10 ms), up to 2 s. Scaled by
 * that duration, contenders spread over a few transactions' worth of time whatever the machine's
 * speed: in fixed milliseconds the windows were narrow next to the slower transactions of a
 * loaded machine, and a burst of writers to one namespace could run out of attempts.
 */
export function retryWindowMs(attempt: number, attemptMs: number): number {
  return Math.min(2000, Math.max(10, attemptMs) * 2 ** attempt);
}

/** What a write touches: its namespace, and the one flag or segment it writes (neither: anything in the namespace). */
/**
 * A bulk write naming more keys than this is announced as touching the whole namespace: a
 * partial read of that many would not pay (loadFlags reads at most 200 flags), and the keys would
 * only weigh on every message that carries the change.
 */
const BATCH_KEYS_NAMED = 200;

export interface WriteScope {
  ns: string;
  flag?: string;
  segment?: string;
  /** A bulk write's new flags and segments (createBatch). */
  batch?: { flags: string[]; segments: string[] };
}

/**
 * What one transaction changed, per namespace, merged write by write, so that evaluation
 * snapshots can be patched instead of rebuilt. Announced only once the transaction commits.
 */
export class ChangeRecorder {
  private readonly byNamespace = new Map<string, Change>();

  /** @param insideTransaction false for reads run outside any: a write there is a query tagged wrongly. */
  constructor(private readonly insideTransaction = true) {}

  /** A write in `scope` moved the revision from `before` to `after` (null: there is no such namespace). */
  wrote(scope: WriteScope, revisions: { before: string; after: string } | null): void {
    const change = this.changeOf(scope.ns, revisions?.before ?? null);
    change.after = revisions?.after ?? null;
    if (scope.flag !== undefined) change.flags.push(scope.flag);
    else if (scope.segment !== undefined) change.segments.push(scope.segment);
    else if (scope.batch && scope.batch.flags.length + scope.batch.segments.length <= BATCH_KEYS_NAMED) {
      for (const list of ['flags', 'segments'] as const) for (const key of scope.batch[list]) change[list].push(key);
    } else change.whole = true;
  }

  /** The namespace was created at `revision` (creation moves no revision: there was none). */
  created(ns: string, revision: string): void {
    const change = this.changeOf(ns, null);
    change.after = revision;
    change.whole = true;
  }

  /** The namespace is gone: no revision after. */
  deleted(ns: string): void {
    this.changeOf(ns, null).after = null;
  }

  all(): Iterable<Change> {
    return this.byNamespace.values();
  }

  private changeOf(ns: string, before: string | null): Change {
    if (!this.insideTransaction) throw internal('storage error', new Error(`a write to namespace "${ns}" ran outside a transaction`));
    let change = this.byNamespace.get(ns);
    if (!change) this.byNamespace.set(ns, (change = { ns, before, after: null, flags: [], segments: [], whole: false }));
    return change;
  }
}

/**
 * The transaction every query receives as its first argument: where its SQL runs (a Kysely
 * transaction, or the database itself for a read that needs none), the clock, the dialect, and
 * the recorder of what it changed.
 */
export interface Tx {
  readonly db: Db;
  readonly clock: Clock;
  readonly dialect: DialectAdapter;
  readonly changes: ChangeRecorder;
  /** The audit events of the transaction's writes (audit-log.ts), written before it commits. */
  readonly audit: AuditRecorder;
  /**
   * Runs a compiled query and returns its rows as arrays, in column order: for the bulk reads
   * of the evaluation model, where building an object per row is most of the cost.
   */
  rows(query: CompiledQuery): Promise<unknown[][]>;
}

/** The database a store runs on: the root handle (never a transaction), its clock and dialect. */
export interface SqlDatabase {
  readonly root: Kysely<Database>;
  readonly clock: Clock;
  readonly dialect: DialectAdapter;
  /** Fails calls at once while the database is known not to answer (none: every call tries). */
  readonly breaker?: DatabaseBreaker | null;
  /** The audit sinks an event waits for in the outbox (none: events are only kept). */
  readonly auditSinks?: readonly AuditSinkSelection[];
}

export function txOn(database: SqlDatabase, executor: Db, changes: ChangeRecorder, audit = new AuditRecorder(database.clock)): Tx {
  const { clock, dialect } = database;
  return {
    db: executor,
    clock,
    dialect,
    changes,
    audit,
    rows: async (query) =>
      dialect.arrayRows ? dialect.arrayRows(query) : (await executor.executeQuery<Record<string, unknown>>(query)).rows.map((row) => Object.values(row)),
  };
}

/** Write transactions run at the dialect's write isolation; snapshot reads at its snapshot isolation. */
export type TransactionKind = 'write' | 'snapshot';

/**
 * Runs `fn` in a new transaction. One that lost a conflict the database asks us to retry
 * (CockroachDB's 40001, deadlocks) runs again whole, after a jittered pause; `onRetry` counts
 * it. Returns what the attempt that committed changed, and how many audit events it wrote, for
 * the caller to announce.
 */
export async function inTransaction<T>(
  database: SqlDatabase,
  kind: TransactionKind,
  fn: (tx: Tx) => Promise<T>,
  onRetry: () => void,
  origin?: AuditOrigin,
): Promise<{ result: T; changes: ChangeRecorder; audited: number }> {
  const { root, dialect } = database;
  const isolation = kind === 'write' ? dialect.writeIsolation : dialect.snapshotIsolation;
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    const changes = new ChangeRecorder();
    const audit = new AuditRecorder(database.clock, origin);
    const builder = root.transaction();
    try {
      const result = await (isolation ? builder.setIsolationLevel(isolation) : builder).execute(async (trx) => {
        const value = await fn(txOn(database, trx, changes, audit));
        // In the same transaction: another process reads a write's extent only with the write,
        // and there is never a change without its audit event, nor an event without its change.
        if (kind === 'write') {
          await logChanges(trx, changes.all());
          await writeAuditEvents(trx, audit.events, database.auditSinks ?? []);
        }
        return value;
      });
      return { result, changes, audited: kind === 'write' ? audit.events.length : 0 };
    } catch (err) {
      if (attempt >= TRANSACTION_ATTEMPTS || !dialect.isRetryable?.(err)) throw err;
      onRetry();
      // Full jitter, growing: contenders spread out instead of colliding again in step.
      await sleep(Math.random() * retryWindowMs(attempt, performance.now() - started));
    }
  }
}
