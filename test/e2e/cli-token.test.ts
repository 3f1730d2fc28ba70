import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, pennon, serve } from '../support/cli';
import { ApiClient } from '../support/server';

const AUTH = { PENNON_AUTHENTICATION_REQUIRED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true' };
const TOKEN = /^[A-Za-z0-9_-]{43}=$/;

describe('pennon token and the bootstrap token (the built CLI)', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pennon-token-'));
    env = { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}` };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a token in-process before the server first starts, and the server accepts it', async () => {
    const created = await pennon(['token', 'create', '--name', 'ci', '--description', 'CI job', '--expires-in', '1h'], { env });
    expect(created.exitCode).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(TOKEN); // stdout holds the token and nothing else
    expect(created.stderr).toMatch(/created token [0-9a-f-]{36} \(ci\)/);

    const port = await freePort();
    const { process: server } = await serve({ ...env, ...AUTH, PENNON_LOG_LEVEL: 'info', PENNON_LOG_ENCODING: 'json' }, port);
    try {
      const api = new ApiClient(`http://127.0.0.1:${port}`);
      expect((await api.get('/api/v1/flags')).status).toBe(401);
      const ok = await api.withHeaders({ authorization: `Bearer ${token}` }).get('/auth/v1/self');
      expect(ok.status).toBe(200);
      expect(ok.body.metadata).toEqual({
        'io.flipt.auth.token.name': 'ci',
        'io.flipt.auth.token.description': 'CI job',
        // Made on the database: no creator to stay under, so an admin's, and its grants as self answers them.
        'io.pennon.auth.role': 'admin',
        'io.pennon.auth.grants': JSON.stringify({ global: 'admin', namespaces: {} }),
      });
      expect(Date.parse(ok.body.expiresAt) - Date.now()).toBeGreaterThan(59 * 60_000);
    } finally {
      server.kill('SIGTERM');
      const out = await server;
      // A token existed, so no bootstrap token was made.
      expect(out.stdout).not.toMatch(/bootstrap token/);
    }
  });

  it('works over HTTP: create (with --json and a namespace), list, delete', async () => {
    const port = await freePort();
    const bootstrap = 'bootstrap-secret-value';
    const { process: server } = await serve({ ...env, ...AUTH, PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: bootstrap }, port);
    const address = `http://127.0.0.1:${port}`;
    try {
      const remote = ['--address', address, '--token', bootstrap];
      const json = await pennon(['token', 'create', '--name', 'scoped', '--namespace', 'default', '--json', ...remote]);
      expect(json.exitCode).toBe(0);
      const created = JSON.parse(json.stdout);
      expect(created.clientToken).toMatch(TOKEN);
      expect(created.authentication.metadata['io.flipt.auth.token.namespace']).toBe('default');

      const list = await pennon(['token', 'list', '--json', ...remote]);
      const names = JSON.parse(list.stdout).map((a: { metadata: Record<string, string> }) => a.metadata['io.flipt.auth.token.name']);
      expect(names).toEqual(['initial_bootstrap_token', 'scoped']);
      expect(JSON.parse(list.stdout)[1].metadata['io.pennon.auth.role']).toBe('admin');
      const table = await pennon(['token', 'list', ...remote]);
      expect(table.stdout).toMatch(/^ID\s+NAME\s+NAMESPACE\s+ROLE\s+EXPIRES\s+CREATED/);
      expect(table.stdout).toMatch(/scoped\s+default\s+admin\s+never/);

      const viewer = await pennon(['token', 'create', '--name', 'reader', '--role', 'viewer', '--json', ...remote]);
      expect(JSON.parse(viewer.stdout).authentication.metadata['io.pennon.auth.role']).toBe('viewer');
      const badRole = await pennon(['token', 'create', '--name', 'x', '--role', 'owner', ...remote]);
      expect(badRole.exitCode).toBe(2);
      expect(badRole.stderr).toMatch(/--role <role>' argument 'owner' is invalid/);

      const api = new ApiClient(address).withHeaders({ authorization: `Bearer ${created.clientToken}` });
      expect((await api.get('/api/v1/flags')).status).toBe(200);
      const deleted = await pennon(['token', 'delete', created.authentication.id, ...remote]);
      expect(deleted.exitCode).toBe(0);
      expect(deleted.stderr).toContain(`deleted token ${created.authentication.id}`);
      expect((await api.get('/api/v1/flags')).status).toBe(401);
      // Deleting it again: the API answers success as Flipt's does; the CLI says it is not there.
      const admin = new ApiClient(address).withHeaders({ authorization: `Bearer ${bootstrap}` });
      const repeated = await admin.delete(`/auth/v1/tokens/${created.authentication.id}`);
      expect([repeated.status, repeated.body]).toEqual([200, {}]);
      const again = await pennon(['token', 'delete', created.authentication.id, ...remote]);
      expect([again.exitCode, again.stderr]).toEqual([1, `pennon: token "${created.authentication.id}" not found on ${address}`]);

      const refused = await pennon(['token', 'list', '--address', address, '--token', 'wrong']);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr.trim()).toBe(`pennon: ${address} answered 401: request was not authenticated\nhint: pass --token with a client token the server accepts (\`pennon token create\` makes one)`);
    } finally {
      server.kill('SIGTERM');
      await server;
    }
  });

  it('refuses usage errors with exit code 2', async () => {
    expect((await pennon(['token', 'create'], { env })).exitCode).toBe(2);
    const both = await pennon(['token', 'create', '--name', 'x', '--expires-at', '2030-01-01T00:00:00Z', '--expires-in', '1h'], { env });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/cannot be used with/);
    const badDate = await pennon(['token', 'create', '--name', 'x', '--expires-at', 'tomorrow'], { env });
    expect(badDate.exitCode).toBe(2);
    expect(badDate.stderr).toMatch(/"tomorrow" is not an RFC 3339 timestamp/);
  });

  it('generates a bootstrap token once, logs it once, and logs a configured one without its value', async () => {
    const port = await freePort();
    const logs = { ...env, ...AUTH, PENNON_LOG_LEVEL: 'info', PENNON_LOG_ENCODING: 'json' };
    const first = await serve(logs, port);
    first.process.kill('SIGTERM');
    const out = String((await first.process).stdout);
    const notices = out.split('\n').filter((l: string) => l.includes('bootstrap token'));
    expect(notices).toHaveLength(1);
    const generated = JSON.parse(notices[0]).clientToken as string;
    expect(generated).toMatch(TOKEN);

    const second = await serve(logs, port);
    try {
      const api = new ApiClient(`http://127.0.0.1:${port}`).withHeaders({ authorization: `Bearer ${generated}` });
      expect((await api.get('/auth/v1/self')).body.metadata['io.flipt.auth.token.name']).toBe('initial_bootstrap_token');
      expect((await api.get('/auth/v1/tokens')).body.authentications).toHaveLength(1);
    } finally {
      second.process.kill('SIGTERM');
      expect((await second.process).stdout).not.toMatch(/bootstrap token/);
    }

    const otherDir = mkdtempSync(join(tmpdir(), 'pennon-token-'));
    try {
      const configured = await serve(
        { ...logs, PENNON_DB_URL: `file:${join(otherDir, 'db')}`, PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'my-configured-secret' },
        port,
      );
      configured.process.kill('SIGTERM');
      const text = (await configured.process).stdout;
      expect(text).toMatch(/created the bootstrap token from authentication\.methods\.token\.bootstrap\.token/);
      expect(text).not.toContain('my-configured-secret');
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('runs the expired-token cleanup on its interval', async () => {
    const port = await freePort();
    const bootstrap = 'cleanup-bootstrap';
    const { process: server } = await serve(
      {
        ...env,
        ...AUTH,
        PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: bootstrap,
        PENNON_AUTHENTICATION_METHODS_TOKEN_CLEANUP_INTERVAL: '200ms',
        PENNON_AUTHENTICATION_METHODS_TOKEN_CLEANUP_GRACE_PERIOD: '100ms',
      },
      port,
    );
    try {
      const api = new ApiClient(`http://127.0.0.1:${port}`).withHeaders({ authorization: `Bearer ${bootstrap}` });
      // A separate process: its clock cannot be moved, so `soon` expires a few seconds out (time to
      // see it stored first, even on a loaded machine) and the test waits, bounded, for the cleanup.
      const soon = await api.post('/auth/v1/method/token', { name: 'soon', expiresAt: new Date(Date.now() + 3000).toISOString() });
      const kept = await api.post('/auth/v1/method/token', { name: 'kept', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
      expect((await api.get(`/auth/v1/tokens/${soon.body.authentication.id}`)).status).toBe(200);
      const deadline = Date.now() + 20_000;
      while ((await api.get(`/auth/v1/tokens/${soon.body.authentication.id}`)).status !== 404) {
        if (Date.now() > deadline) throw new Error('the expired token was never cleaned up');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect((await api.get(`/auth/v1/tokens/${kept.body.authentication.id}`)).status).toBe(200);
    } finally {
      server.kill('SIGTERM');
      await server;
    }
  });
});
