import type { CompiledQuery, IsolationLevel } from 'kysely';

/**
 * What differs between databases, kept to the minimum: what their errors mean, the isolation
 * of transactions, which conflicts are retried, and a driver's faster way to read rows. One
 * adapter per dialect file (sqlite.ts, postgres.ts, cockroach.ts, mysql.ts), as Flipt keeps
 * per-dialect error mapping in `internal/storage/sql/{sqlite,postgres,mysql}`.
 */
export interface DialectAdapter {
  readonly name: 'sqlite' | 'postgres' | 'mysql' | 'cockroach';
  isUniqueViolation(err: unknown): boolean;
  isForeignKeyViolation(err: unknown): boolean;
  /** The database cannot be reached or the connection broke. */
  isConnectionError(err: unknown): boolean;
  /**
   * At start-up: the database is not there *yet* (an orchestrator starts it beside us, it is
   * restarting, it refuses connections for a while), so the service waits for it. A wrong
   * password, a database that does not exist or pending migrations are not: those fail the
   * start at once with their own message.
   */
  isNotReadyYet(err: unknown): boolean;
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
  /**
   * The database itself cancelled a statement that ran past `db.statement_timeout` (PostgreSQL
   * 57014, MariaDB 1969, MySQL 3024): reported as Unavailable, like a client-side deadline.
   */
  isTimeout?(err: unknown): boolean;
  /** Isolation of write transactions; unset: the database's default. */
  readonly writeIsolation?: IsolationLevel;
  /**
   * Isolation of the evaluation model's multi-query reads, which must see one snapshot that
   * matches the revision they read first; unset: the database's default (SQLite's is one).
   */
  readonly snapshotIsolation?: IsolationLevel;
  /** A driver-level way to read rows as arrays, where the driver has one. */
  arrayRows?(query: CompiledQuery): unknown[][];
  /**
   * The same rows, `perSlice` at a time, for a synchronous driver (SQLite): the caller frees
   * the event loop between slices. Only inside a transaction (it holds the connection).
   */
  sliceRows?(query: CompiledQuery, perSlice: number): Iterable<unknown[][]>;
}
