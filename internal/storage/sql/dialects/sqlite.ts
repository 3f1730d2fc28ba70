import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, type Driver, type SqliteDatabase } from 'kysely';
import type { Connection } from '../connection';
import type { Database } from '../tables';
import type { DialectAdapter } from './adapter';
import { errorCode as code } from './driver-errors';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from './pool';
import { sqliteAddon } from './sqlite-addon';

function adapterFor(raw: BetterSqlite3.Database): DialectAdapter {
  // Prepared statements for the evaluation model's reads, kept: preparing costs more than running.
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    ...sqliteAdapter,
    arrayRows(query) {
      let statement = statements.get(query.sql);
      if (!statement) statements.set(query.sql, (statement = raw.prepare(query.sql).raw(true)));
      return statement.all(...(query.parameters as unknown[])) as unknown[][];
    },
    *sliceRows(query, perSlice) {
      // Its own statement: one being iterated cannot run again until the iteration ends.
      const rows = raw.prepare(query.sql).raw(true).iterate(...(query.parameters as unknown[])) as IterableIterator<unknown[]>;
      try {
        let slice: unknown[][] = [];
        for (const row of rows) {
          slice.push(row);
          if (slice.length === perSlice) {
            yield slice;
            slice = [];
          }
        }
        if (slice.length > 0) yield slice;
      } finally {
        rows.return?.();
      }
    },
  };
}

/** Statements kept per connection: enough for every query shape, with room for IN lists of many lengths. */
const KEPT_STATEMENTS = 256;

/**
 * The handle as Kysely sees it, with the statements it prepares kept by their SQL text (least
 * recently used dropped first): Kysely prepares every query it runs, and preparing cost more
 * than running a small query (an export of 100,000 flags: 9 of its 31 s of SQL).
 */
function keepingStatements(raw: BetterSqlite3.Database): SqliteDatabase {
  const kept = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => raw.close(),
    prepare(sql) {
      let statement = kept.get(sql);
      if (statement) kept.delete(sql);
      else statement = raw.prepare(sql);
      kept.set(sql, statement);
      if (kept.size > KEPT_STATEMENTS) kept.delete(kept.keys().next().value as string);
      return statement;
    },
  };
}

export const sqliteAdapter: DialectAdapter = {
  name: 'sqlite',
  isUniqueViolation: (err) => code(err) === 'SQLITE_CONSTRAINT_UNIQUE' || code(err) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  isForeignKeyViolation: (err) => code(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY',
  isConnectionError: (err) => /^SQLITE_(CANTOPEN|IOERR|BUSY|LOCKED|NOTADB|CORRUPT|FULL)/.test(code(err)),
  // A file opens or it does not: nothing comes up later to wait for.
  isNotReadyYet: () => false,
  // Write transactions begin IMMEDIATE (WriteFirstSqliteDialect): see there.
  writeIsolation: 'serializable',
};

/**
 * SQLite with write transactions that take the file's write lock at BEGIN (`BEGIN IMMEDIATE`).
 * A write transaction reads first — the audit trail reads the object before the change — and a
 * deferred one that has read cannot take the lock once another process (an import thread, a
 * `pennon` command, another worker) has committed: SQLite answers SQLITE_BUSY at once instead
 * of waiting `busy_timeout`. Taking the lock first waits for it as any write did. Reads (no
 * isolation asked) begin deferred.
 */
class WriteFirstSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection, settings) => {
      await connection.executeQuery(CompiledQuery.raw(settings.isolationLevel === 'serializable' ? 'begin immediate' : 'begin'));
    };
    return driver;
  }
}

/** `file:/path/x.db`, `file:./x.db`, `sqlite:x.db` or `file::memory:` → a filesystem path. */
export function sqlitePath(url: string): string {
  const body = url.replace(/^(file|sqlite3?):(\/\/)?/, '').replace(/\?.*$/, '');
  if (body === '' ) throw new Error(`database URL "${url}" names no file`);
  return body === ':memory:' ? body : resolve(body);
}

/**
 * How hard a commit waits for the disk: `full` (the default) syncs the WAL at every commit, so an
 * acknowledged write survives a power loss; `normal` syncs only at checkpoints (faster writes;
 * the last commits before a power loss or OS crash may be lost, never corrupted). Set with
 * go-sqlite3's URL parameter, which Flipt's SQLite URLs take: `?_synchronous=normal` (or `_sync`).
 */
const SYNCHRONOUS = ['full', 'normal', 'extra'] as const;
export type SqliteSynchronous = (typeof SYNCHRONOUS)[number];

export function sqliteSynchronous(url: string): SqliteSynchronous {
  const query = /\?(.*)$/.exec(url)?.[1] ?? '';
  const params = new URLSearchParams(query);
  const name = ['_synchronous', '_sync'].find((n) => params.has(n));
  if (name === undefined) return 'full';
  const value = (params.get(name) ?? '').toLowerCase();
  if ((SYNCHRONOUS as readonly string[]).includes(value)) return value as SqliteSynchronous;
  throw new Error(
    `database URL parameter ${name}=${params.get(name)} is not a SQLite synchronous mode: use full (the default: every acknowledged write survives a power loss), normal (faster writes; the last ones may be lost on power loss) or extra`,
  );
}


/**
 * @param statementTimeoutMs `db.statement_timeout`: how long a statement waits for another
 *   process's lock on the file (`pennon flag import` writing) before it fails as Unavailable.
 *   Nothing else can keep an embedded database's statement waiting.
 */
export function openSqlite(url: string, statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS): Connection {
  const path = sqlitePath(url);
  const synchronous = sqliteSynchronous(url);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  // Inside the single executable the addon comes from the SEA asset (see sqlite-addon.ts).
  let raw: BetterSqlite3.Database;
  try {
    raw = new BetterSqlite3(path, { nativeBinding: sqliteAddon() as string });
    // WAL lets readers proceed while the one writer writes; this process is that writer.
    raw.pragma('journal_mode = WAL');
  } catch (err) {
    throw new Error(`cannot open the SQLite database ${path}: ${(err as Error).message}`, { cause: err });
  }
  raw.pragma(`synchronous = ${synchronous.toUpperCase()}`);
  raw.pragma('foreign_keys = ON');
  // 0 would mean "fail at once when locked", not "wait forever": no limit is a very long one.
  raw.pragma(`busy_timeout = ${statementTimeoutMs > 0 ? Math.round(statementTimeoutMs) : 2 ** 31 - 1}`);
  return connectionOver(raw, `sqlite ${path}`, async (script) => {
    raw.transaction(() => raw.exec(script))();
  });
}

/** The Connection over an open handle; `runScript` runs a migration's script. */
function connectionOver(raw: BetterSqlite3.Database, describe: string, runScript: (script: string) => Promise<void>): Connection {
  const db = new Kysely<Database>({ dialect: new WriteFirstSqliteDialect({ database: keepingStatements(raw) }) });
  return {
    db,
    adapter: adapterFor(raw),
    describe,
    runScript,
    transactionalDdl: true,
    hasTable: async (name) => raw.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined,
    withMigrationLock: async (fn) => fn(), // one process owns the file
    close: async () => {
      await db.destroy();
      // Kysely hands the driver the handle at its first query: without one, destroy leaves it
      // open, and a handle never closed leaves the write-ahead log beside the file.
      if (raw.open) raw.close();
    },
  };
}

/**
 * Another program's SQLite file opened only to be read (a Flipt v1 database, for `migrate
 * --from-flipt`): read-only, the file must exist, and none of the pragmas above, which would
 * change it (journal_mode persists in the file).
 */
export function openSqliteReadOnly(url: string): Connection {
  const path = sqlitePath(url);
  let raw: BetterSqlite3.Database;
  try {
    raw = new BetterSqlite3(path, { readonly: true, fileMustExist: true, nativeBinding: sqliteAddon() as string });
  } catch (err) {
    throw new Error(`cannot open the SQLite database ${path}: ${(err as Error).message}`, { cause: err });
  }
  return connectionOver(raw, `sqlite ${path} (read-only)`, async () => {
    throw new Error(`${path} is open read-only`);
  });
}
