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
  /** How long a query waits for a connection (a new one, or one from a busy pool); default CONNECT_TIMEOUT_MS. */
  acquireTimeoutMs?: number;
}

/** Go's database/sql has no limit by default; a pool needs one. */
export const DEFAULT_MAX_OPEN = 10;
/** How long a connection above `maxIdle` may stay idle before it is closed. */
export const IDLE_TIMEOUT_MS = 10_000;
/** How long a request waits for a connection (new or from a busy pool) before it fails as Unavailable. */
export const CONNECT_TIMEOUT_MS = 10_000;

export const DEFAULT_POOL: PoolOptions = { maxOpen: 0, maxIdle: 2, maxLifetimeMs: 0, preparedStatements: true };

/** The effective sizes: a max of 0 means the default; idle never exceeds open. */
export function poolSizes(options: PoolOptions): { max: number; idle: number } {
  const max = options.maxOpen > 0 ? options.maxOpen : DEFAULT_MAX_OPEN;
  return { max, idle: Math.min(Math.max(options.maxIdle, 0), max) };
}
