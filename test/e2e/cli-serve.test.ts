import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, pennon, serve } from '../support/cli';

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
    expect(first.stderr).toMatch(/applied 2 migration\(s\): 0001_initial, 0002_authentications/);
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

  it('serves, finishes an in-flight request on SIGTERM, refuses new ones, and exits 0', async () => {
    const port = await freePort();
    const { process: child } = await serve(env, port);

    // An in-flight request: headers and half of the body sent before the signal.
    const body = JSON.stringify({ key: 'inflight', name: 'In flight' });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/api/v1/flags', method: 'POST', headers: { 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 100);
    });

    const finished = await response;
    expect(finished.status).toBe(200);
    expect(JSON.parse(finished.text)).toMatchObject({ key: 'inflight' });

    const result = await child;
    expect(result.exitCode).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    // The database was closed cleanly: SQLite folded the WAL back into the file.
    expect(existsSync(join(dir, 'pennon.db-wal'))).toBe(false);
    const db = new Database(join(dir, 'pennon.db'), { readonly: true });
    expect(db.prepare("SELECT key FROM flags WHERE key = 'inflight'").get()).toEqual({ key: 'inflight' });
    db.close();
  });
});
