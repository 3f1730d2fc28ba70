import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PennonError, systemClock } from '../../../internal/core';
import { DEFAULT_POOL, openDatabase, prepareSchema, storeFor, type Connection, type SqlStore } from '../../../internal/storage/sql';
import { MYSQL_URL, POSTGRES_URL, mysqlAdmin, postgresAdmin, unless } from '../../support/backends';
import { flagInput } from '../../support/store';

/**
 * The database going away under a running store: statements fail as Unavailable (503), the
 * process survives the connections dying (an unhandled 'error' event would end it), and the
 * store works again once the server takes connections, without being reopened.
 */

const kindOf = (e: unknown) => (e instanceof PennonError ? `${e.kind}: ${e.message}` : `not a PennonError: ${String(e)}`);
const UNAVAILABLE = 'unavailable: the database is unavailable';

describe.runIf(POSTGRES_URL !== '')(unless('PostgreSQL outage', { PENNON_TEST_POSTGRES_URL: POSTGRES_URL }), () => {
  // A database of its own: the test terminates every backend connected to it, and refuses new ones.
  const database = `pennon_t_outage_${process.pid}_${Date.now().toString(36)}`;
  let conn: Connection;
  let store: SqlStore;
  beforeEach(async () => {
    await postgresAdmin(`CREATE DATABASE ${database}`);
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${database}`;
    conn = openDatabase(url.toString(), { ...DEFAULT_POOL, maxOpen: 4, maxIdle: 4 });
    await prepareSchema(conn);
    store = storeFor(conn, systemClock());
  });
  afterEach(async () => {
    await conn?.close();
    await postgresAdmin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it('terminated backends: the write in flight and new calls are Unavailable; recovery without reopening', async () => {
    await store.createFlag('default', flagInput('before'));
    // Several idle clients in the pool, so that their deaths are 'error' events nobody awaits.
    await Promise.all([1, 2, 3].map(() => store.listFlags('default', { limit: 0, offset: 0 })));
    const errors: unknown[] = [];
    const failed = await store
      .transaction(async (tx) => {
        await tx.createFlag('default', flagInput('inside'));
        // New connections refused first (so the pool cannot reconnect in between), then every
        // backend on the database terminated, as an operator or a failover would.
        await postgresAdmin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
        const killed = await postgresAdmin<{ n: number }>(
          'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        );
        expect(killed[0].n).toBeGreaterThanOrEqual(2);
        await tx.createFlag('default', flagInput('after-kill'));
      })
      .catch((e: unknown) => e);
    errors.push(failed);
    // While connections are refused, every call fails the same way.
    errors.push(await store.getFlag('default', 'before').catch((e: unknown) => e));
    errors.push(await store.createFlag('default', flagInput('while-down')).catch((e: unknown) => e));
    expect(errors.map(kindOf)).toEqual([UNAVAILABLE, UNAVAILABLE, UNAVAILABLE]);

    await postgresAdmin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    expect((await store.getFlag('default', 'before')).key).toBe('before');
    await store.createFlag('default', flagInput('recovered'));
    // The interrupted transaction left nothing behind.
    const keys = (await store.listFlags('default', { limit: 0, offset: 0 })).items.map((f) => f.key);
    expect(keys).toEqual(['before', 'recovered']);
  });
});

describe.runIf(MYSQL_URL !== '')(unless('MySQL outage', { PENNON_TEST_MYSQL_URL: MYSQL_URL }), () => {
  const database = `pennon_t_outage_${process.pid}_${Date.now().toString(36)}`;
  let conn: Connection;
  let store: SqlStore;
  beforeEach(async () => {
    await mysqlAdmin(`CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    const url = new URL(MYSQL_URL);
    url.pathname = `/${database}`;
    conn = openDatabase(url.toString(), { ...DEFAULT_POOL, maxOpen: 4, maxIdle: 4 });
    await prepareSchema(conn);
    store = storeFor(conn, systemClock());
  });
  afterEach(async () => {
    await conn?.close();
    await mysqlAdmin(`DROP DATABASE IF EXISTS ${database}`);
  });

  it('killed connections: the write in flight is Unavailable, the process survives, the next calls work', async () => {
    await store.createFlag('default', flagInput('before'));
    await Promise.all([1, 2, 3].map(() => store.listFlags('default', { limit: 0, offset: 0 })));
    const killAll = async () => {
      const ids = await mysqlAdmin<{ ID: number }>('SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()', [database]);
      for (const { ID } of ids) await mysqlAdmin(`KILL CONNECTION ${Number(ID)}`).catch(() => undefined);
      return ids.length;
    };
    const failed = await store
      .transaction(async (tx) => {
        await tx.createFlag('default', flagInput('inside'));
        expect(await killAll()).toBeGreaterThanOrEqual(2);
        await tx.createFlag('default', flagInput('after-kill'));
      })
      .catch((e: unknown) => e);
    expect(kindOf(failed)).toBe(UNAVAILABLE);
    // Idle connections died too; their errors were handled, and the pool opens new ones.
    await new Promise((r) => setTimeout(r, 100));
    expect((await store.getFlag('default', 'before')).key).toBe('before');
    await store.createFlag('default', flagInput('recovered'));
    expect((await store.listFlags('default', { limit: 0, offset: 0 })).items.map((f) => f.key)).toEqual(['before', 'recovered']);
  });
});
