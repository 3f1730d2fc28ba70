import { sql } from 'kysely';
import { Umzug, type UmzugStorage } from 'umzug';
import type { Connection } from './connection';
import { MIGRATIONS } from './migrations';

/**
 * Self-managed schema. A fresh database is migrated when the service starts; an existing one
 * with pending migrations is refused until an operator runs `pennon migrate` (after a backup),
 * as Flipt does. Migrations run under the connection's cross-process lock.
 */

const TABLE = 'pennon_migrations';

export class PendingMigrationsError extends Error {
  constructor(readonly pending: string[]) {
    super(
      `the database has ${pending.length} pending migration(s) (${pending.join(', ')}); ` +
        'back up the database and run `pennon migrate`',
    );
    this.name = 'PendingMigrationsError';
  }
}

function storage(conn: Connection): UmzugStorage {
  return {
    async executed() {
      const rows = await sql<{ name: string }>`SELECT name FROM ${sql.table(TABLE)} ORDER BY name`.execute(conn.db);
      return rows.rows.map((r) => r.name);
    },
    async logMigration({ name }) {
      await sql`INSERT INTO ${sql.table(TABLE)} (name, applied_at) VALUES (${name}, ${Date.now() * 1000})`.execute(conn.db);
    },
    async unlogMigration({ name }) {
      await sql`DELETE FROM ${sql.table(TABLE)} WHERE name = ${name}`.execute(conn.db);
    },
  };
}

async function umzug(conn: Connection): Promise<Umzug<object>> {
  await conn.runScript(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (name VARCHAR(255) NOT NULL PRIMARY KEY, applied_at BIGINT NOT NULL)`,
  );
  const migrations = MIGRATIONS[conn.adapter.name as 'sqlite'] ?? [];
  return new Umzug({
    migrations: migrations.map((m) => ({ name: m.name, up: () => conn.runScript(m.sql) })),
    context: {},
    storage: storage(conn),
    logger: undefined,
  });
}

/** True when Pennon's tables exist (even if the migration log was lost). */
async function hasSchema(conn: Connection): Promise<boolean> {
  try {
    await sql`SELECT 1 FROM namespaces LIMIT 1`.execute(conn.db);
    return true;
  } catch {
    return false;
  }
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
    if ((await u.executed()).length > 0 || (await hasSchema(conn))) throw new PendingMigrationsError(pending.map((m) => m.name));
    return { applied: (await u.up()).map((m) => m.name) };
  });
}
