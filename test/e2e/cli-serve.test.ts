import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, pennon, refusesConnections, serve } from '../support/cli';
import { holdRequest } from '../support/held-request';
import { parseResponse } from '../support/raw-http';
import { until } from '../support/wait';

describe('pennon serve and migrate (the built CLI)', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pennon-cli-'));
    env = { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}` };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints help for the program and each command', async () => {
    const root = await pennon(['--help']);
    expect(root.exitCode).toBe(0);
    expect(root.stdout).toMatch(/serve/);
    expect(root.stdout).toMatch(/migrate/);
    for (const command of ['serve', 'migrate']) {
      const help = await pennon([command, '--help']);
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`Usage: pennon ${command}`));
    }
  });

  it('exits 2 on a usage error', async () => {
    const result = await pennon(['bogus']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'bogus'/);
  });

  it('migrates a fresh database, then reports it up to date', async () => {
    const first = await pennon(['migrate'], { env });
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toMatch(/applied 5 migration\(s\): 0001_initial, 0002_authentications, 0003_list_order, 0004_change_log, 0005_audit/);
    const second = await pennon(['migrate'], { env });
    expect(second.exitCode).toBe(0);
    expect(second.stderr).toMatch(/up to date/);
  });

  it('refuses to serve a database with pending migrations, naming `pennon migrate`', async () => {
    expect((await pennon(['migrate'], { env })).exitCode).toBe(0);
    const db = new Database(join(dir, 'pennon.db'));
    db.prepare("DELETE FROM pennon_migrations WHERE name = '0001_initial'").run();
    db.close();
    const result = await pennon(['serve'], { env: { ...env, PENNON_SERVER_HTTP_PORT: String(await freePort()) } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/pending migration\(s\) \(0001_initial\).*run `pennon migrate`/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a bad configuration with one line per problem', async () => {
    const result = await pennon(['serve'], { env: { ...env, PENNON_SERVER_HTTP_PORT: 'eighty', PENNON_LOG_ENCODING: 'xml' } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/server\.http_port \(from PENNON_SERVER_HTTP_PORT\): expected number/);
    expect(result.stderr).toMatch(/log\.encoding \(from PENNON_LOG_ENCODING\)/);
  });

  it('serves, finishes an in-flight request on SIGTERM (answered Connection: close), refuses new ones, and exits 0', async () => {
    const port = await freePort();
    const { process: child } = await serve(env, port);

    // An in-flight request: dispatched by the server, half of its body sent before the signal.
    const body = JSON.stringify({ key: 'inflight', name: 'In flight' });
    const held = await holdRequest(port, `POST /api/v1/flags HTTP/1.1\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(body)}`, body.slice(0, 10));
    child.kill('SIGTERM');
    // Not accepting any more: the drain has begun.
    await until(() => refusesConnections(port), 'the listener is closed');
    held.send(body.slice(10));

    const finished = parseResponse(Buffer.from(await held.closed));
    expect(held.error()).toBeNull(); // closed by the server after its answer, not reset
    expect(finished.status).toBe(200);
    expect(finished.headers.connection).toBe('close');
    expect(JSON.parse(finished.body.toString())).toMatchObject({ key: 'inflight' });

    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(await refusesConnections(port)).toBe(true);
    // The database was closed cleanly: SQLite folded the WAL back into the file.
    expect(existsSync(join(dir, 'pennon.db-wal'))).toBe(false);
    const db = new Database(join(dir, 'pennon.db'), { readonly: true });
    expect(db.prepare("SELECT key FROM flags WHERE key = 'inflight'").get()).toEqual({ key: 'inflight' });
    db.close();
  });
});
