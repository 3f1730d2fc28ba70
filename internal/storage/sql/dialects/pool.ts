/**
 * Connection-pool settings for the external databases, in the storage room's own terms (the
 * service maps `db.*` configuration onto them). SQLite ignores them: one process, one handle.
 */
export interface PoolOptions {
  /** Most connections open at once (`db.max_open_conn`; 0 = DEFAULT_MAX_OPEN). */
  maxOpen: number;
  /** Connections kept open while idle (`db.max_idle_conn`); more are closed after IDLE_TIMEOUT_MS. */
  maxIdle: number;
  /** A connection is closed once this old (`db.conn_max_lifetime`, ms; 0 = never). */
  maxLifetimeMs: number;
  /**
   * `db.prepared_statements_enabled`, accepted for Flipt compatibility. It changes nothing with
   * our drivers: pg sends every query as an unnamed statement, mysql2 (through Kysely) uses the
   * text protocol; neither keeps named statements on the server (docs/DECISIONS.md).
   */
  preparedStatements: boolean;
  /**
   * How long opening a connection may take (`db.connect_timeout`, ms; 0 = the driver's own, no
   * limit). PostgreSQL's pool also waits this long for a busy pool's connection.
   */
  connectTimeoutMs: number;
  /**
   * How long one statement may run (`db.statement_timeout`, ms; 0 = no limit): the database
   * cancels it where it has a setting for it (PostgreSQL, MariaDB), and the client gives up
   * STATEMENT_GRACE_MS later whatever the database does, resetting the connection (a partition).
   */
  statementTimeoutMs: number;
  /** How long a query waits for a connection (a new one, or one from a busy pool); default connectTimeoutMs. */
  acquireTimeoutMs?: number;
}

/** How much longer than the database's own statement timeout the client waits before it gives up on the connection. */
export const STATEMENT_GRACE_MS = 500;

/** The client-side deadline of one statement (0: none). */
export function clientDeadlineMs(options: Pick<PoolOptions, 'statementTimeoutMs'>): number {
  return options.statementTimeoutMs > 0 ? options.statementTimeoutMs + STATEMENT_GRACE_MS : 0;
}

/** How long a query waits for a connection: acquireTimeoutMs, else connectTimeoutMs, else FALLBACK_ACQUIRE_MS. */
export function acquireTimeoutMs(options: PoolOptions): number {
  return options.acquireTimeoutMs ?? (options.connectTimeoutMs > 0 ? options.connectTimeoutMs : FALLBACK_ACQUIRE_MS);
}

/** Go's database/sql has no limit by default; a pool needs one. */
export const DEFAULT_MAX_OPEN = 10;
/** How long a connection above `maxIdle` may stay idle before it is closed. */
export const IDLE_TIMEOUT_MS = 10_000;
/** With `db.connect_timeout: 0`, a request still waits at most this long for a busy pool's connection. */
export const FALLBACK_ACQUIRE_MS = 10_000;
/** `db.connect_timeout` and `db.statement_timeout` by default. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;

export const DEFAULT_POOL: PoolOptions = {
  maxOpen: 0,
  maxIdle: 2,
  maxLifetimeMs: 0,
  preparedStatements: true,
  connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
  statementTimeoutMs: DEFAULT_STATEMENT_TIMEOUT_MS,
};

/** The effective sizes: a max of 0 means the default; idle never exceeds open. */
export function poolSizes(options: PoolOptions): { max: number; idle: number } {
  const max = options.maxOpen > 0 ? options.maxOpen : DEFAULT_MAX_OPEN;
  return { max, idle: Math.min(Math.max(options.maxIdle, 0), max) };
}
