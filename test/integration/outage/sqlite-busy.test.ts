import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlitePath } from '../../../internal/storage/sql';
import { expectStatus, startServer, type TestServer } from '../../support/server';

/**
 * db.statement_timeout on SQLite (issue 15, item 2): the one wait an embedded database has is
 * another process holding the file's write lock (`pennon flag import` writing, a backup tool).
 * A write waits at most db.statement_timeout for it (busy_timeout, 5 s fixed before), answers
 * 503, is not applied, and writes work again once the lock is released.
 */
describe('SQLite: a write behind another process\'s lock', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ PENNON_DB_STATEMENT_TIMEOUT: '1s' });
    expectStatus(await server.api.post('/api/v1/flags', { key: 'f', name: 'F', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
  });
  afterAll(() => server?.stop());

  it('answers 503 within db.statement_timeout (+ margin), applies nothing, and recovers once the lock is released', async () => {
    const other = new BetterSqlite3(sqlitePath(server.dbUrl));
    try {
      other.exec('BEGIN IMMEDIATE'); // the write lock, held as another writer holds it
      const started = performance.now();
      const write = await server.api.put('/api/v1/flags/f', { name: 'F', enabled: false });
      const ms = performance.now() - started;
      expect(write.status, write.text).toBe(503);
      expect(write.body.code).toBe(14);
      expect(ms).toBeGreaterThanOrEqual(900); // it did wait for the lock…
      expect(ms).toBeLessThan(1000 + 1500); // …for db.statement_timeout, not the 5 s it used to
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    expect(expectStatus(await server.api.get('/api/v1/flags/f'), 200).enabled).toBe(true);
    expect(expectStatus(await server.api.put('/api/v1/flags/f', { name: 'F', enabled: false }), 200).enabled).toBe(false);
  });
});
