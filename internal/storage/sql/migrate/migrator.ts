import { sql } from 'kysely';
import { Umzug, type UmzugStorage } from 'umzug';
import type { Connection } from '../connection';
import { MIGRATIONS } from './migrations';

/**
 * Self-managed schema. A fresh database is migrated when the service starts; an existing one
 * with pending migrations is refused until an operator runs `pennon migrate` (after a backup),
 * as Flipt does. Migrations run under the connection's cross-process lock, so instances that
 * start together migrate once.
 *
 * Where DDL is not transactional (MySQL, CockroachDB) a migration that fails half-way leaves
 * some of its statements applied. So on those databases a migration is logged as started
 * (applied_at = -1) before it runs and as applied after: a row still at -1 is a migration that
 * was interrupted, and every later start refuses with IncompleteMigrationError instead of
 * guessing.
 */

const TABLE = 'pennon_migrations';
const STARTED = -1;

export class PendingMigrationsError extends Error {
  constructor(readonly pending: string[]) {
    super(
      `the database has ${pending.length} pending migration(s) (${pending.join(', ')}); ` +
        'back up the database and run `pennon migrate`',
    );
    this.name = 'PendingMigrationsError';
  }
}

export class IncompleteMigrationError extends Error {
  constructor(readonly migrations: string[]) {
    super(
      `migration(s) ${migrations.join(', ')} started but did not finish, and this database cannot undo schema changes; ` +
        `restore the backup taken before migrating (or repair the schema by hand and delete their rows from ${TABLE}), then run \`pennon migrate\``,
    );
    this.name = 'IncompleteMigrationError';
  }
}

function storage(conn: Connection): UmzugStorage {
  return {
    async executed() {
      const rows = await sql<{ name: string; applied_at: number | string }>`SELECT name, applied_at FROM ${sql.table(TABLE)} ORDER BY name`.execute(conn.db);
      const started = rows.rows.filter((r) => Number(r.applied_at) === STARTED).map((r) => r.name);
      if (started.length > 0) throw new IncompleteMigrationError(started);
      return rows.rows.map((r) => r.name);
    },
    async logMigration({ name }) {
      const now = Date.now() * 1000;
      if (conn.transactionalDdl) {
        await sql`INSERT INTO ${sql.table(TABLE)} (name, applied_at) VALUES (${name}, ${now})`.execute(conn.db);
      } else {
        await sql`UPDATE ${sql.table(TABLE)} SET applied_at = ${now} WHERE name = ${name}`.execute(conn.db);
      }
    },
    async unlogMigration({ name }) {
      await sql`DELETE FROM ${sql.table(TABLE)} WHERE name = ${name}`.execute(conn.db);
    },
  };
}

/** The log table, created if missing (tolerating another instance creating it at the same moment). */
async function ensureLogTable(conn: Connection): Promise<void> {
  if (await conn.hasTable(TABLE)) return;
  try {
    await conn.runScript(`CREATE TABLE IF NOT EXISTS ${TABLE} (name VARCHAR(255) NOT NULL PRIMARY KEY, applied_at BIGINT NOT NULL)`);
  } catch (err) {
    if (!(await conn.hasTable(TABLE))) throw err;
  }
}

async function umzug(conn: Connection): Promise<Umzug<object>> {
  await ensureLogTable(conn);
  const migrations = MIGRATIONS[conn.adapter.name];
  return new Umzug({
    migrations: migrations.map((m) => ({
      name: m.name,
      up: async () => {
        if (!conn.transactionalDdl) await sql`INSERT INTO ${sql.table(TABLE)} (name, applied_at) VALUES (${m.name}, ${STARTED})`.execute(conn.db);
        await conn.runScript(m.sql);
      },
    })),
    context: {},
    storage: storage(conn),
    logger: undefined,
  });
}

export async function pendingMigrations(conn: Connection): Promise<string[]> {
  return (await (await umzug(conn)).pending()).map((m) => m.name);
}

/** Applies every pending migration; returns the names applied. */
export async function migrate(conn: Connection): Promise<string[]> {
  return conn.withMigrationLock(async () => (await (await umzug(conn)).up()).map((m) => m.name));
}

/** For `serve`: migrate a fresh database, refuse an existing one that is behind. */
export async function prepareSchema(conn: Connection): Promise<{ applied: string[] }> {
  return conn.withMigrationLock(async () => {
    const u = await umzug(conn);
    const pending = await u.pending();
    if (pending.length === 0) return { applied: [] };
    // Pennon's tables without a log (the log was lost) count as an existing database too.
    if ((await u.executed()).length > 0 || (await conn.hasTable('namespaces'))) throw new PendingMigrationsError(pending.map((m) => m.name));
    return { applied: (await u.up()).map((m) => m.name) };
  });
}
