import type { Clock } from '../../core';
import type { Connection } from './connection';
import { openSqlite } from './sqlite';
import { SqlStore } from './store';

export { SqlStore } from './store';
export type { Connection } from './connection';
export { migrate, pendingMigrations, prepareSchema, PendingMigrationsError } from './migrate';
export { sqlitePath } from './sqlite';

/** Opens the database a `db.url` names. */
export function openDatabase(url: string): Connection {
  if (/^(file|sqlite3?):/.test(url)) return openSqlite(url);
  const scheme = url.split(':')[0];
  throw new Error(`unsupported database URL scheme "${scheme}:" (supported: file:, sqlite:)`);
}

export function storeFor(conn: Connection, clock: Clock): SqlStore {
  return new SqlStore(conn.db, clock, conn.adapter);
}
