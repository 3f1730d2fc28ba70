import type { Clock } from '../../core';
import type { Connection } from './connection';
import { openMysql } from './mysql';
import { DEFAULT_POOL, type PoolOptions } from './pool';
import { openPostgres } from './postgres';
import { openSqlite } from './sqlite';
import { SqlStore } from './store';

export { SqlStore } from './store';
export type { Connection } from './connection';
export { migrate, pendingMigrations, prepareSchema, PendingMigrationsError, IncompleteMigrationError } from './migrate';
export { sqlitePath } from './sqlite';
export { DEFAULT_MAX_OPEN, DEFAULT_POOL, type PoolOptions } from './pool';

/**
 * Opens the database a `db.url` names, in the forms Flipt accepts: `file:`/`sqlite:` (SQLite),
 * `postgres://`/`postgresql://`, `mysql://`, `cockroach://`/`cockroachdb://`. Nothing
 * connects until the first query. Pool settings apply to the external databases.
 */
export function openDatabase(url: string, pool: PoolOptions = DEFAULT_POOL): Connection {
  const scheme = (/^([a-z0-9]+):/i.exec(url)?.[1] ?? '').toLowerCase();
  switch (scheme) {
    case 'file':
    case 'sqlite':
    case 'sqlite3':
      return openSqlite(url);
    case 'postgres':
    case 'postgresql':
      return openPostgres(url, 'postgres', pool);
    case 'cockroach':
    case 'cockroachdb':
      return openPostgres(url, 'cockroach', pool);
    case 'mysql':
      return openMysql(url, pool);
    default:
      throw new Error(
        `unsupported database URL scheme "${scheme}:" (supported: file:, sqlite:, postgres://, postgresql://, mysql://, cockroach://, cockroachdb://)`,
      );
  }
}

export function storeFor(conn: Connection, clock: Clock): SqlStore {
  return new SqlStore(conn.db, clock, conn.adapter);
}
