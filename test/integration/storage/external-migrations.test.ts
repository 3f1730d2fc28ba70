import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { systemClock } from '../../../internal/core';
import { IncompleteMigrationError, migrate, openDatabase, pendingMigrations, prepareSchema, storeFor, type Connection } from '../../../internal/storage/sql';
import { LEASE_TABLE, withLease } from '../../../internal/storage/sql/migrate/lease';
import { MIGRATIONS } from '../../../internal/storage/sql/migrate/migrations';
import { describeOnExternal, type Backend } from '../../support/backends';

/**
 * Migrations on the external databases, where several instances may start at once: each
 * migration must run exactly once under the dialect's lock (advisory lock on PostgreSQL,
 * GET_LOCK on MySQL, a lease row for CockroachDB — tested on PostgreSQL).
 */

/** Fresh database, and helpers to open several Connections on it, all closed afterwards. */
function useFreshDatabase(backend: Backend) {
  const state = { url: '', opened: [] as Connection[] };
  let cleanup: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    const db = await backend.create();
    state.url = db.url;
    cleanup = db.cleanup;
  });
  afterEach(async () => {
    await Promise.all(state.opened.splice(0).map((c) => c.close()));
    await cleanup?.();
  });
  const open = () => {
    const conn = openDatabase(state.url);
    state.opened.push(conn);
    return conn;
  };
  return { open };
}

const logRows = async (conn: Connection) =>
  (await sql<{ name: string; applied_at: number }>`SELECT name, applied_at FROM pennon_migrations ORDER BY name`.execute(conn.db)).rows;

describeOnExternal(['postgres', 'cockroach-on-postgres', 'mysql'], 'migrations from several instances on $name', (backend) => {
  const fresh = useFreshDatabase(backend);
  const names = () => MIGRATIONS[fresh.open().adapter.name].map((m) => m.name);

  it('three concurrent migrate() calls on a fresh database run each migration exactly once', async () => {
    const all = names();
    const conns = [fresh.open(), fresh.open(), fresh.open()];
    const results = await Promise.all(conns.map((c) => migrate(c)));
    // One instance applied everything; the others found nothing left to do.
    expect(results.flat().sort()).toEqual([...all].sort());
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
    const rows = await logRows(conns[0]);
    expect(rows.map((r) => r.name)).toEqual(all);
    for (const row of rows) expect(Number(row.applied_at)).toBeGreaterThan(0);
    const store = storeFor(conns[1], systemClock());
    expect((await store.listNamespaces({ limit: 0, offset: 0 })).items.map((n) => n.key)).toEqual(['default']);
  });

  it('three concurrent prepareSchema() calls (three servers starting) migrate once and all succeed', async () => {
    const conns = [fresh.open(), fresh.open(), fresh.open()];
    const results = await Promise.all(conns.map((c) => prepareSchema(c)));
    expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
    expect((await logRows(conns[2])).map((r) => r.name)).toEqual(names());
    for (const c of conns) expect(await pendingMigrations(c)).toEqual([]);
  });

  it('the default namespace gets its creation time from the database clock, in microseconds', async () => {
    const conn = fresh.open();
    const before = Date.now() * 1000;
    await prepareSchema(conn);
    const ns = await storeFor(conn, systemClock()).getNamespace('default');
    // Same machine, so the clocks agree to well within a minute.
    expect(Math.abs(ns.createdAt - before)).toBeLessThan(60_000_000);
    expect(Number.isInteger(ns.createdAt)).toBe(true);
  });

  it.runIf(backend.name !== 'postgres')('refuses to go on after a migration that started and did not finish (DDL is not transactional here)', async () => {
    const conn = fresh.open();
    expect(conn.transactionalDdl).toBe(false);
    await prepareSchema(conn);
    // What an instance that died half-way through a migration leaves behind.
    await sql`INSERT INTO pennon_migrations (name, applied_at) VALUES (${'9999_interrupted'}, ${-1})`.execute(conn.db);
    await expect(prepareSchema(conn)).rejects.toBeInstanceOf(IncompleteMigrationError);
    await expect(migrate(conn)).rejects.toThrow(/9999_interrupted.*did not finish.*restore the backup/);
  });
});

describeOnExternal(['cockroach-on-postgres'], 'the lease lock on $name', (backend) => {
  const fresh = useFreshDatabase(backend);

  it('excludes other holders while held and waits out the lease of a holder that died', async () => {
    const conn = fresh.open();
    // Taken and released: the row exists and is free.
    await withLease(conn.db, async () => undefined);
    const leaseMs = 1500;
    // An instance that took the lease and died: nobody renews or frees it.
    await sql`UPDATE ${sql.table(LEASE_TABLE)} SET owner = ${'crashed'}, expires_at = now() + CAST(${`${leaseMs} milliseconds`} AS INTERVAL) WHERE id = 1`.execute(conn.db);
    const started = Date.now();
    const order: string[] = [];
    const holder = (name: string) =>
      withLease(
        fresh.open().db,
        async () => {
          order.push(`${name} in`);
          await new Promise((r) => setTimeout(r, 200));
          order.push(`${name} out`);
        },
        { maxBackoffMs: 100 },
      );
    await Promise.all([holder('a'), holder('b'), holder('c')]);
    // Nobody got in before the dead lease ran out, and the holders never overlapped.
    expect(Date.now() - started).toBeGreaterThanOrEqual(leaseMs - 100);
    expect(order).toHaveLength(6);
    for (let i = 0; i < 6; i += 2) expect(order[i + 1]).toBe(order[i].replace(' in', ' out'));
    const row = (await sql<{ owner: string | null }>`SELECT owner FROM ${sql.table(LEASE_TABLE)} WHERE id = 1`.execute(conn.db)).rows[0];
    expect(row.owner).toBeNull();
  });

  it('renews the lease while a long migration runs', async () => {
    const conn = fresh.open();
    let stolen = false;
    await withLease(
      conn.db,
      async () => {
        // Past the lease's own length: without renewal another instance could take it. (A lease
        // twenty renewals long: a loaded machine may delay a renewal, not by two seconds.)
        await new Promise((r) => setTimeout(r, 2400));
        const taken = await sql`UPDATE ${sql.table(LEASE_TABLE)} SET owner = ${'intruder'} WHERE id = 1 AND expires_at < now()`.execute(conn.db);
        stolen = Number(taken.numAffectedRows) > 0;
      },
      { leaseMs: 2000, renewMs: 100 },
    );
    expect(stolen).toBe(false);
  });
});
