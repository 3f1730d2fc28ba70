import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../support/cli';
import { startServer, expectStatus, type TestServer } from '../../support/server';

/**
 * SQLite's `synchronous` as the served database runs it (issue 15, item 8). The pragma is per
 * connection, so it is read through the server's own connection — a second connection would
 * read its own default, not what the server writes with. FULL (2) syncs the WAL at every commit:
 * an acknowledged write survives a power loss; NORMAL (1) is the documented trade back.
 */
async function synchronousOf(server: TestServer): Promise<number> {
  const { rows } = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(server.service.services.connection.db);
  return rows[0].synchronous;
}

async function withSqliteServer(query: string, use: (server: TestServer) => Promise<void>): Promise<void> {
  // A SQLite server whatever back end the suite runs on: the setting is SQLite's alone.
  const dir = tempDir('pennon-durability-');
  const dbUrl = `file:${join(dir, 'durable.db')}${query}`;
  try {
    const server = await startServer({ PENNON_DB_URL: dbUrl });
    try {
      await use(server);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('SQLite durability (synchronous)', () => {
  it('defaults to FULL on a served database: a write is acknowledged after its WAL is synced', async () => {
    await withSqliteServer('', async (server) => {
      expectStatus(await server.api.post('/api/v1/flags', { key: 'durable', name: 'Durable' }), 200);
      expect(await synchronousOf(server)).toBe(2);
    });
  });

  it('trades it back with the URL parameter _synchronous=normal (go-sqlite3’s name; _sync too)', async () => {
    await withSqliteServer('?_synchronous=normal', async (server) => expect(await synchronousOf(server)).toBe(1));
    await withSqliteServer('?_sync=NORMAL', async (server) => expect(await synchronousOf(server)).toBe(1));
    await withSqliteServer('?_synchronous=full', async (server) => expect(await synchronousOf(server)).toBe(2));
  });

  it('refuses a mode it does not offer, naming the parameter and the choices', async () => {
    await expect(withSqliteServer('?_synchronous=off', async () => undefined)).rejects.toThrow(
      /_synchronous=off is not a SQLite synchronous mode: use full .*normal/,
    );
  });
});
