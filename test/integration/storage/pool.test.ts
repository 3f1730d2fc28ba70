import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { PennonError, systemClock } from '../../../internal/core';
import { DEFAULT_POOL, openDatabase, prepareSchema, storeFor, type Connection, type PoolOptions } from '../../../internal/storage/sql';
import { describeOnExternal, type Backend } from '../../support/backends';

/**
 * The pool settings reach the drivers: `db.max_open_conn` caps the connections an instance
 * opens, `db.conn_max_lifetime` replaces old ones, and waiting for a connection has a limit. Observed from the server's side (backend
 * pid, connection id).
 */
const sessionId = (b: Backend) => (b.name === 'mysql' ? sql<{ id: number }>`SELECT CONNECTION_ID() AS id` : sql<{ id: number }>`SELECT pg_backend_pid() AS id`);
const pause = (b: Backend, seconds: number) => (b.name === 'mysql' ? sql`SELECT SLEEP(${seconds})` : sql`SELECT pg_sleep(${seconds})`);

describeOnExternal(['postgres', 'mysql'], 'connection pool on $name', (backend) => {
  let url = '';
  let cleanup: (() => Promise<void>) | undefined;
  const opened: Connection[] = [];
  beforeEach(async () => {
    ({ url, cleanup } = await backend.create());
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.close()));
    await cleanup?.();
  });
  const open = (pool: Partial<PoolOptions>) => {
    const conn = openDatabase(url, { ...DEFAULT_POOL, ...pool });
    opened.push(conn);
    return conn;
  };

  it('max_open_conn caps concurrent connections (others wait their turn); 0 means 10', async () => {
    // Six callers, each holding a connection for 100 ms at the same time.
    const capped = open({ maxOpen: 2 });
    const ids = await Promise.all(Array.from({ length: 6 }, () => sessionIdHeld(backend, capped)));
    expect(new Set(ids).size).toBeLessThanOrEqual(2);
    const wide = open({ maxOpen: 0 });
    const wideIds = await Promise.all(Array.from({ length: 6 }, () => sessionIdHeld(backend, wide)));
    expect(new Set(wideIds).size).toBe(6);
    const eleven = await Promise.all(Array.from({ length: 11 }, () => sessionIdHeld(backend, wide)));
    expect(new Set(eleven).size).toBe(10);
  });

  it('a query that cannot get a connection in time fails as Unavailable instead of waiting forever', async () => {
    const conn = open({ maxOpen: 1, acquireTimeoutMs: 300 });
    await prepareSchema(conn);
    const store = storeFor(conn, systemClock());
    // The only connection is busy for two seconds (below db.statement_timeout), from the moment the pool hands it out.
    let acquired = () => undefined as void;
    const holding = new Promise<void>((resolve) => (acquired = resolve));
    let released = false;
    const busy = conn.db
      .connection()
      .execute((db) => {
        acquired();
        return pause(backend, 2).execute(db);
      })
      .finally(() => (released = true));
    await holding;
    const err = await store.getNamespace('default').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PennonError);
    expect((err as PennonError).kind).toBe('unavailable');
    expect(released).toBe(false); // it gave up after acquireTimeoutMs, not once the connection came back
    await busy;
    // Once free, the same pool serves again.
    expect((await store.getNamespace('default')).key).toBe('default');
  });

  it('conn_max_lifetime replaces a connection once it is that old', async () => {
    const conn = open({ maxOpen: 1, maxLifetimeMs: 1000 });
    const first = (await sessionId(backend).execute(conn.db)).rows[0].id;
    expect((await sessionId(backend).execute(conn.db)).rows[0].id).toBe(first);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await sessionId(backend).execute(conn.db)).rows[0].id).not.toBe(first);
  });
});

/** The session id of a connection held for a moment, so that concurrent callers need several. */
async function sessionIdHeld(backend: Backend, conn: Connection): Promise<number> {
  return conn.db.connection().execute(async (db) => {
    const id = (await sessionId(backend).execute(db)).rows[0].id;
    await pause(backend, 0.1).execute(db);
    return id;
  });
}
