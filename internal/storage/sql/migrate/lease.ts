import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../tables';

/**
 * A cross-process lock for databases without advisory locks (CockroachDB): a lease row. An
 * instance takes the row when it is free or its lease has run out, renews it while the work
 * runs, and frees it after. An instance that dies holding it blocks others until the lease
 * expires. Times come from the database's clock, so instances' clocks need not agree.
 * Plain SQL that PostgreSQL runs too, which is where it is tested.
 */

export const LEASE_TABLE = 'pennon_migration_lock';

export interface LeaseOptions {
  /** How long a lease lasts unless renewed. */
  leaseMs: number;
  /** How often the holder renews it (well under leaseMs). */
  renewMs: number;
  /** Longest single wait between two attempts to take the lease. */
  maxBackoffMs: number;
  owner: string;
}

export const DEFAULT_LEASE: Omit<LeaseOptions, 'owner'> = { leaseMs: 60_000, renewMs: 15_000, maxBackoffMs: 1_000 };

const until = (ms: number) => sql`now() + CAST(${`${ms} milliseconds`} AS INTERVAL)`;

async function ensureTable(db: Kysely<Database>): Promise<void> {
  const create = sql`CREATE TABLE IF NOT EXISTS ${sql.table(LEASE_TABLE)} (
    id INTEGER NOT NULL PRIMARY KEY, owner VARCHAR(64) NULL, expires_at TIMESTAMPTZ NOT NULL)`;
  try {
    await create.execute(db);
  } catch (err) {
    // Two instances creating it at once: PostgreSQL may report the loser's catalog conflict.
    const exists = await sql`SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ${LEASE_TABLE}`.execute(db);
    if (exists.rows.length === 0) throw err;
  }
  await sql`INSERT INTO ${sql.table(LEASE_TABLE)} (id, owner, expires_at) VALUES (1, NULL, now()) ON CONFLICT (id) DO NOTHING`.execute(db);
}

/** Takes the lease (waiting as long as it takes), runs `fn`, and frees the lease. */
export async function withLease<T>(db: Kysely<Database>, fn: () => Promise<T>, options: Partial<LeaseOptions> = {}): Promise<T> {
  const { leaseMs, renewMs, maxBackoffMs, owner } = { ...DEFAULT_LEASE, owner: randomUUID(), ...options };
  await ensureTable(db);
  for (let attempt = 0; ; attempt++) {
    const taken = await sql`UPDATE ${sql.table(LEASE_TABLE)} SET owner = ${owner}, expires_at = ${until(leaseMs)}
      WHERE id = 1 AND (owner IS NULL OR expires_at < now())`.execute(db);
    if (Number(taken.numAffectedRows) === 1) break;
    await sleep(Math.random() * Math.min(maxBackoffMs, 50 * 2 ** Math.min(attempt, 10)));
  }
  // Renewed while `fn` runs, so a long migration keeps it; a failed renewal is retried next time.
  const renewal = setInterval(() => {
    sql`UPDATE ${sql.table(LEASE_TABLE)} SET expires_at = ${until(leaseMs)} WHERE id = 1 AND owner = ${owner}`.execute(db).catch(() => undefined);
  }, renewMs);
  try {
    return await fn();
  } finally {
    clearInterval(renewal);
    await sql`UPDATE ${sql.table(LEASE_TABLE)} SET owner = NULL WHERE id = 1 AND owner = ${owner}`.execute(db).catch(() => undefined);
  }
}
