import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { DbConfig } from '../config';
import type { AuditOrigin, Clock } from '../core';
import { DatabaseBreaker, openDatabase, pendingMigrations, PendingMigrationsError, prepareSchema, storeFor, type AuditSinkSelection, type Connection, type Store } from '../storage';
import { sqlitePath, type PoolOptions } from '../storage/sql';
import type { Tracing } from '../telemetry/tracing';

/** Who a command run on the database directly is, for the audit trail: the local user, through the CLI. */
export function cliOrigin(): AuditOrigin {
  let name = process.env.USER ?? '';
  try {
    name = userInfo().username;
  } catch {
    // A user without a passwd entry (some containers): $USER, or nobody named.
  }
  return { actor: { authentication: 'local', ...(name !== '' && { name }) }, source: 'cli', requestId: null };
}

export interface OpenedStore {
  connection: Connection;
  store: Store;
  /** The store's circuit breaker, where the database can be probed (not SQLite); started by serve only. */
  breaker: DatabaseBreaker | null;
}

/** Default ports of the protocol/host/port form when `db.port` is 0 (CockroachDB's is not 5432). */
const DEFAULT_PORTS: Record<string, number> = { postgres: 5432, postgresql: 5432, mysql: 3306, cockroach: 26257, cockroachdb: 26257 };

/** The database URL a configuration names (the url, or the protocol/host/… form). */
export function databaseUrl(db: DbConfig): string {
  if (db.url !== '') return db.url;
  if (db.protocol === '' || db.protocol === 'file' || db.protocol === 'sqlite' || db.protocol === 'sqlite3') return `file:${db.name}`;
  const auth = db.user !== '' ? `${encodeURIComponent(db.user)}${db.password !== '' ? `:${encodeURIComponent(db.password)}` : ''}@` : '';
  const host = db.host === '' ? 'localhost' : db.host.includes(':') ? `[${db.host}]` : db.host;
  const port = db.port > 0 ? db.port : DEFAULT_PORTS[db.protocol];
  return `${db.protocol}://${auth}${host}:${port}/${encodeURIComponent(db.name)}`;
}

/** The SQLite file a configuration names (`:memory:` for an in-memory one); null for any other database. */
export function sqliteFileOf(db: DbConfig): string | null {
  const url = databaseUrl(db);
  return /^(file|sqlite3?):/i.test(url) ? sqlitePath(url) : null;
}

/** `db.max_open_conn`, `max_idle_conn`, `conn_max_lifetime`, `prepared_statements_enabled`, `connect_timeout`, `statement_timeout`. */
export function poolOptions(db: DbConfig): PoolOptions {
  return {
    maxOpen: db.max_open_conn,
    maxIdle: db.max_idle_conn,
    maxLifetimeMs: db.conn_max_lifetime,
    preparedStatements: db.prepared_statements_enabled,
    connectTimeoutMs: db.connect_timeout,
    statementTimeoutMs: db.statement_timeout,
  };
}

/** With tracing, the store's queries are traced (the connection itself, for migrations and locks, is not). */
export function openStore(db: DbConfig, clock: Clock, tracing: Tracing | null = null, auditSinks: readonly AuditSinkSelection[] = []): OpenedStore {
  const connection = openDatabase(databaseUrl(db), poolOptions(db));
  const breaker = connection.probe ? new DatabaseBreaker((timeoutMs) => connection.probe!(timeoutMs)) : null;
  return { connection, breaker, store: storeFor(tracing ? tracing.queries(connection) : connection, clock, breaker, auditSinks) };
}

/**
 * For commands that work on the database directly: a fresh database gets its schema (so CI
 * can create a token before the first `serve`); one with pending migrations is refused.
 */
export async function openPreparedStore(db: DbConfig, clock: Clock, auditSinks: readonly AuditSinkSelection[] = []): Promise<OpenedStore> {
  const opened = openStore(db, clock, null, auditSinks);
  try {
    await prepareSchema(opened.connection);
    return opened;
  } catch (err) {
    await opened.connection.close();
    throw err;
  }
}

const HOW_TO_CONFIGURE = 'point --config FILE (db.url) or PENNON_DB_URL at the database to read';

/**
 * For commands that only read (evaluate, flag export, token list and delete): the configured
 * database as it is. A SQLite file that does not exist is not created and an empty database is
 * not migrated — either would only lead to "not found" about a database nobody meant — so both
 * are refused, naming the database; one with pending migrations is refused as by `serve`.
 */
export async function openExistingStore(db: DbConfig, clock: Clock, auditSinks: readonly AuditSinkSelection[] = []): Promise<OpenedStore> {
  const path = sqliteFileOf(db);
  if (path !== null && path !== ':memory:' && !existsSync(path)) throw new Error(`no database at ${path}: nothing to read; ${HOW_TO_CONFIGURE}`);
  const opened = openStore(db, clock, null, auditSinks);
  try {
    const { connection } = opened;
    if (!(await connection.hasTable('namespaces'))) throw new Error(`${connection.describe} has no Pennon tables: nothing to read; ${HOW_TO_CONFIGURE}`);
    // Without the migration log, asking umzug what is pending would create the log table.
    if (!(await connection.hasTable('pennon_migrations'))) throw new Error(`${connection.describe} has no migration log: back it up and run \`pennon migrate\``);
    const pending = await pendingMigrations(connection);
    if (pending.length > 0) throw new PendingMigrationsError(pending);
    return opened;
  } catch (err) {
    await opened.connection.close();
    throw err;
  }
}
