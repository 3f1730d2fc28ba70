import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Connection } from '../connection';
import type { Database } from '../tables';
import type { DialectAdapter } from './adapter';
import { errorCode as code } from './driver-errors';
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
  };
}

export const sqliteAdapter: DialectAdapter = {
  name: 'sqlite',
  isUniqueViolation: (err) => code(err) === 'SQLITE_CONSTRAINT_UNIQUE' || code(err) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  isForeignKeyViolation: (err) => code(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY',
  isConnectionError: (err) => /^SQLITE_(CANTOPEN|IOERR|BUSY|LOCKED|NOTADB|CORRUPT|FULL)/.test(code(err)),
  // A file opens or it does not: nothing comes up later to wait for.
  isNotReadyYet: () => false,
};

/** `file:/path/x.db`, `file:./x.db`, `sqlite:x.db` or `file::memory:` → a filesystem path. */
export function sqlitePath(url: string): string {
  const body = url.replace(/^(file|sqlite3?):(\/\/)?/, '').replace(/\?.*$/, '');
  if (body === '' ) throw new Error(`database URL "${url}" names no file`);
  return body === ':memory:' ? body : resolve(body);
}

export function openSqlite(url: string): Connection {
  const path = sqlitePath(url);
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
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
  return {
    db,
    adapter: adapterFor(raw),
    describe: `sqlite ${path}`,
    runScript: async (script) => {
      raw.transaction(() => raw.exec(script))();
    },
    transactionalDdl: true,
    hasTable: async (name) => raw.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined,
    withMigrationLock: async (fn) => fn(), // one process owns the file
    close: async () => {
      await db.destroy();
    },
  };
}
