import type { DbConfig } from '../config';
import type { Clock } from '../core';
import { openDatabase, prepareSchema, storeFor, type Connection, type Store } from '../storage';
import type { PoolOptions } from '../storage/sql';
import type { Tracing } from '../telemetry/tracing';

export interface OpenedStore {
  connection: Connection;
  store: Store;
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

/** `db.max_open_conn`, `max_idle_conn`, `conn_max_lifetime`, `prepared_statements_enabled`. */
export function poolOptions(db: DbConfig): PoolOptions {
  return {
    maxOpen: db.max_open_conn,
    maxIdle: db.max_idle_conn,
    maxLifetimeMs: db.conn_max_lifetime,
    preparedStatements: db.prepared_statements_enabled,
  };
}

/** With tracing, the store's queries are traced (the connection itself, for migrations and locks, is not). */
export function openStore(db: DbConfig, clock: Clock, tracing: Tracing | null = null): OpenedStore {
  const connection = openDatabase(databaseUrl(db), poolOptions(db));
  return { connection, store: storeFor(tracing ? tracing.queries(connection) : connection, clock) };
}

/**
 * For commands that work on the database directly: a fresh database gets its schema (so CI
 * can create a token before the first `serve`); one with pending migrations is refused.
 */
export async function openPreparedStore(db: DbConfig, clock: Clock): Promise<OpenedStore> {
  const opened = openStore(db, clock);
  try {
    await prepareSchema(opened.connection);
    return opened;
  } catch (err) {
    await opened.connection.close();
    throw err;
  }
}
