import type { Clock } from '../../core';
import type { AuditSinkSelection } from './audit-recorder';
import type { DatabaseBreaker } from './breaker';
import type { Connection } from './connection';
import { openCockroach } from './dialects/cockroach';
import { openMysql } from './dialects/mysql';
import { DEFAULT_POOL, type PoolOptions } from './dialects/pool';
import { openPostgres } from './dialects/postgres';
import { openSqlite, openSqliteReadOnly } from './dialects/sqlite';
import { createSqlStore, type SqlStore } from './store';

export type { SqlStore } from './store';
export type { AuditSinkSelection } from './audit-recorder';
export type { Connection } from './connection';
export type { DialectAdapter } from './dialects/adapter';
export { migrate, pendingMigrations, prepareSchema, PendingMigrationsError, IncompleteMigrationError } from './migrate/migrator';
export { sqlitePath } from './dialects/sqlite';
export { DEFAULT_MAX_OPEN, DEFAULT_POOL, STATEMENT_GRACE_MS, type PoolOptions } from './dialects/pool';
export { DatabaseBreaker, PROBE_INTERVAL_MS, PROBE_TIMEOUT_MS } from './breaker';
export { readFliptV1, type FliptV1Contents } from './flipt-v1/read';
export { copyFliptV1, type CopyCounts } from './flipt-v1/copy';

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
      return openSqlite(url, pool.statementTimeoutMs);
    case 'postgres':
    case 'postgresql':
      return openPostgres(url, pool);
    case 'cockroach':
    case 'cockroachdb':
      return openCockroach(url, pool);
    case 'mysql':
      return openMysql(url, pool);
    default:
      throw new Error(
        `unsupported database URL scheme "${scheme}:" (supported: file:, sqlite:, postgres://, postgresql://, mysql://, cockroach://, cockroachdb://)`,
      );
  }
}

/**
 * The store over a connection (its Kysely handle and dialect: a traced connection's too); with a
 * breaker, its calls fail at once while the database is known not to answer.
 */
export function storeFor(conn: Pick<Connection, 'db' | 'adapter'>, clock: Clock, breaker: DatabaseBreaker | null = null, auditSinks: readonly AuditSinkSelection[] = []): SqlStore {
  return createSqlStore({ root: conn.db, clock, dialect: conn.adapter, breaker, auditSinks });
}

/**
 * A Flipt v1 database by the URL Flipt names it with, opened to be read only: a SQLite file
 * read-only and untouched (no pragma that would change it), the others as usual — only SELECTs
 * are run on it.
 */
export function openFliptDatabase(url: string): Connection {
  return /^(file|sqlite3?):/i.test(url) ? openSqliteReadOnly(url) : openDatabase(url, DEFAULT_POOL);
}
