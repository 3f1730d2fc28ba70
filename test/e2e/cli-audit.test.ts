import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, pennon, serve, tempDir } from '../support/cli';
import { ApiClient, expectStatus } from '../support/server';

/**
 * `pennon audit list` (the built CLI) against a real server on loopback and its SQLite
 * database: in-process (the database the server writes) and with --address (the server's
 * audit route) print the same events, in wire's AuditEventJson shape, as the API gives them;
 * filters, the limit, the table, and the errors a user meets.
 */

const AUTH = { PENNON_AUTHENTICATION_REQUIRED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true' };
const BOOTSTRAP = 'cli-audit-bootstrap';

describe('pennon audit list (the built CLI)', () => {
  let dir: string;
  let env: Record<string, string>;
  let address: string;
  let server: Awaited<ReturnType<typeof serve>>['process'];
  let admin: ApiClient;
  let scopedToken: string;
  let scopedId: string;

  beforeAll(async () => {
    dir = tempDir('pennon-audit-');
    env = { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}` };
    const port = await freePort();
    ({ process: server } = await serve({ ...env, ...AUTH, PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: BOOTSTRAP }, port));
    address = `http://127.0.0.1:${port}`;
    admin = new ApiClient(address).withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
    const alice = new ApiClient(address).withHeaders({ authorization: `Bearer ${expectStatus(await admin.post('/auth/v1/method/token', { name: 'alice' }), 200).clientToken}` });
    // A token limited to namespace team: its creation is filed in that namespace.
    ({ clientToken: scopedToken, authentication: { id: scopedId } } = expectStatus(await admin.post('/auth/v1/method/token', { name: 'team only', namespaceKey: 'team' }), 200));
    expectStatus(await admin.post('/api/v1/namespaces', { key: 'team', name: 'Team' }), 200);
    expectStatus(await alice.post('/api/v1/namespaces/team/flags', { key: 'checkout', name: 'Checkout', type: 'VARIANT_FLAG_TYPE' }), 200);
    expectStatus(await alice.put('/api/v1/namespaces/team/flags/checkout', { name: 'Checkout', enabled: true }), 200);
    expectStatus(await alice.post('/api/v1/namespaces/team/segments', { key: 'pro', name: 'Pro', matchType: 'ALL_MATCH_TYPE' }), 200);
    expectStatus(await admin.post('/api/v1/namespaces/default/flags', { key: 'banner', name: 'Banner', type: 'BOOLEAN_FLAG_TYPE' }), 200);
  });
  afterAll(async () => {
    server?.kill('SIGTERM');
    await server;
    rmSync(dir, { recursive: true, force: true });
  });

  const remote = () => ['--address', address, '--token', BOOTSTRAP];
  /** The JSON lines of a --json run, parsed. */
  const lines = (stdout: string) =>
    stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));

  it('prints the same events as the API, in its JSON, in-process and with --address', async () => {
    const api = expectStatus(await admin.get('/api/v1/audit/events'), 200).events;
    // Two tokens, a namespace, four changes in it or default.
    expect(api.map((e: { type: string; action: string; key: string }) => `${e.action} ${e.type} ${e.key}`).slice(0, 5)).toEqual([
      'created flag banner',
      'created segment pro',
      'updated flag checkout',
      'created flag checkout',
      'created namespace team',
    ]);
    const local = await pennon(['audit', 'list', '--json'], { env });
    expect([local.exitCode, local.stderr]).toEqual([0, '']);
    expect(lines(local.stdout)).toEqual(api);
    const over = await pennon(['audit', 'list', '--json', ...remote()]);
    expect([over.exitCode, over.stderr]).toEqual([0, '']);
    expect(lines(over.stdout)).toEqual(api);
    expect(lines(local.stdout)[2]).toMatchObject({
      version: '0.2',
      status: 'success',
      type: 'flag',
      action: 'updated',
      namespace: 'team',
      key: 'checkout',
      source: 'api',
      metadata: { actor: { authentication: 'token', name: 'alice' } },
      before: { enabled: false },
      payload: { enabled: true },
    });
  });

  it('prints a table: a namespace column only when listing every namespace', async () => {
    for (const mode of [[], remote()]) {
      const team = await pennon(['audit', 'list', '--namespace', 'team', ...mode], { env });
      expect(team.exitCode).toBe(0);
      const [header, ...rows] = team.stdout.trimEnd().split('\n');
      expect(header.split(/\s+/)).toEqual(['TIME', 'ACTOR', 'SOURCE', 'ACTION', 'TYPE', 'KEY']);
      expect(rows.map((r) => r.split(/\s{2,}/).slice(1))).toEqual([
        ['alice', 'api', 'created', 'segment', 'pro'],
        ['alice', 'api', 'updated', 'flag', 'checkout'],
        ['alice', 'api', 'created', 'flag', 'checkout'],
        ['initial_bootstrap_token', 'api', 'created', 'namespace', 'team'],
        ['initial_bootstrap_token', 'api', 'created', 'token', scopedId],
      ]);
      expect(rows[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}/);

      const all = await pennon(['audit', 'list', '--type', 'flag', ...mode], { env });
      const [allHeader, ...allRows] = all.stdout.trimEnd().split('\n');
      expect(allHeader.split(/\s+/)).toEqual(['TIME', 'ACTOR', 'SOURCE', 'ACTION', 'TYPE', 'NAMESPACE', 'KEY']);
      expect(allRows.map((r) => r.split(/\s{2,}/).slice(4))).toEqual([
        ['flag', 'default', 'banner'],
        ['flag', 'team', 'checkout'],
        ['flag', 'team', 'checkout'],
      ]);
    }
  });

  it('filters by type, action, key, actor and time, in both modes alike', async () => {
    const cases: [string[], string[]][] = [
      [['--type', 'flag', '--action', 'updated', '--key', 'checkout'], ['updated flag checkout']],
      [['--actor', 'alice', '--type', 'flag,segment'], ['created segment pro', 'updated flag checkout', 'created flag checkout']],
      [['--namespace', 'default', '--since', '1h'], ['created flag banner']],
      [['--until', '2000-01-01T00:00:00Z'], []],
    ];
    for (const [args, expected] of cases) {
      for (const mode of [[], remote()]) {
        const run = await pennon(['audit', 'list', '--json', ...args, ...mode], { env });
        expect(run.exitCode, args.join(' ')).toBe(0);
        expect(lines(run.stdout).map((e) => `${e.action} ${e.type} ${e.key}`), `${args.join(' ')} ${mode.length > 0 ? 'remote' : 'local'}`).toEqual(expected);
      }
    }
    const none = await pennon(['audit', 'list', '--namespace', 'team', '--until', '2000-01-01T00:00:00Z'], { env });
    expect(none.stderr).toBe(`no audit events in namespace team match in sqlite ${join(dir, 'pennon.db')}`);
  });

  it('stops at --limit and says there are more', async () => {
    for (const mode of [[], remote()]) {
      const run = await pennon(['audit', 'list', '--json', '--limit', '2', ...mode], { env });
      expect(lines(run.stdout).map((e) => e.key)).toEqual(['banner', 'pro']);
      expect(run.stderr).toBe('the newest 2 shown; there are more (raise --limit, or narrow with --since, --type, --key)');
    }
    const exact = await pennon(['audit', 'list', '--json', '--namespace', 'default', '--limit', '1'], { env });
    expect([lines(exact.stdout).length, exact.stderr]).toEqual([1, '']);
  });

  it('refuses what it cannot read, saying what it accepts', async () => {
    const since = await pennon(['audit', 'list', '--since', 'yesterday'], { env });
    expect(since.exitCode).toBe(2);
    expect(since.stderr).toContain(`"yesterday" is neither a duration meaning that long ago (30m, 24h, 168h) nor an RFC 3339 timestamp (2030-01-02T15:04:05Z)`);
    const type = await pennon(['audit', 'list', '--type', 'flags'], { env });
    expect(type.exitCode).toBe(2);
    expect(type.stderr).toContain(`"flags" is not one of namespace, flag, variant`);
    const action = await pennon(['audit', 'list', '--action', 'enabled', ...remote()]);
    expect([action.exitCode, action.stderr.includes('"enabled" is not one of created, updated, deleted')]).toEqual([2, true]);
    const limit = await pennon(['audit', 'list', '--limit', '0'], { env });
    expect([limit.exitCode, limit.stderr.includes('"0" is not a whole number of events')]).toEqual([2, true]);

    const bare = await pennon(['audit', 'list', '--address', 'localhost:8080']);
    expect([bare.exitCode, bare.stderr.includes('"localhost:8080" is not an http:// or https:// URL (did you mean http://localhost:8080?)')]).toEqual([2, true]);
    const help = await pennon(['audit', 'list', '--help']);
    expect(help.stdout).toMatch(/\(default:\s+every type\)/);
    expect(help.stdout).not.toContain('(default: [])');

    // In-process, a database that is not there is not made: the message names where it looked.
    const missing = await pennon(['audit', 'list'], { env: { PENNON_DB_URL: `file:${join(dir, 'none.db')}` } });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain(`no database at ${join(dir, 'none.db')}`);

    const refused = await pennon(['audit', 'list', '--address', address, '--token', 'wrong']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(`pennon: ${address} answered 401`);
    // A token limited to one namespace reads that one only: said, with what to do.
    const scoped = await pennon(['audit', 'list', '--address', address, '--token', scopedToken]);
    expect(scoped.exitCode).toBe(1);
    expect(scoped.stderr).toContain('hint: a token limited to one namespace reads that namespace only: pass --namespace');
    const scopedTeam = await pennon(['audit', 'list', '--json', '--namespace', 'team', '--address', address, '--token', scopedToken]);
    expect([scopedTeam.exitCode, lines(scopedTeam.stdout).length]).toEqual([0, 5]);
  });
});
