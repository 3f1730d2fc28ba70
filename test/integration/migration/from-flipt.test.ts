import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../internal/core';
import { compileNamespace, contextsFor, evaluateBoolean, evaluateVariant } from '../../../internal/evaluation';
import { migrateFromFlipt } from '../../../internal/service/flipt-migration';
import { openFliptDatabase, readFliptV1, type FliptV1Contents } from '../../../internal/storage';
import { createFliptDatabase, fillDataSet, type DataSet, type FliptDatabase, type FliptDialect, type FliptVersion } from '../../support/flipt-v1';
import { ApiClient, expectStatus, startServer, type TestServer } from '../../support/server';

/**
 * `pennon migrate --from-flipt`: real Flipt v1 databases (the schema Flipt v1.40.0 and v1.61.1
 * leave, on SQLite and — where configured — PostgreSQL and MySQL) filled with every object kind
 * and three tokens, copied into a fresh Pennon database, then served: every token authenticates
 * as it did (the expired one not, the scoped one in its namespace only), every object reads back
 * with its id and timestamps, and every evaluation for 2,000 entities equals the one computed on
 * Flipt's data; `--verify` finds no difference; the source is left as it was.
 */

const ENTITIES = 2000;
/** golang-migrate's last migration in each fixture (test/fixtures/flipt-v1/schema). */
const SCHEMA_VERSIONS = { 'v1.40.0': { sqlite: 11, postgres: 12, mysql: 11 }, 'v1.61.1': { sqlite: 15, postgres: 16, mysql: 15 } };
const cases: { dialect: FliptDialect; version: FliptVersion; admin?: string }[] = [];
for (const version of ['v1.40.0', 'v1.61.1'] as const) {
  cases.push({ dialect: 'sqlite', version });
  if (process.env.PENNON_TEST_POSTGRES_URL) cases.push({ dialect: 'postgres', version, admin: process.env.PENNON_TEST_POSTGRES_URL });
  if (process.env.PENNON_TEST_MYSQL_URL) cases.push({ dialect: 'mysql', version, admin: process.env.PENNON_TEST_MYSQL_URL });
}

describe.each(cases)('a Flipt $version database on $dialect', ({ dialect, version, admin }) => {
  let source: FliptDatabase;
  let data: DataSet;
  let before: FliptV1Contents;
  let dir: string;
  let target: string;
  let server: TestServer;
  beforeAll(async () => {
    source = await createFliptDatabase(dialect, version, admin);
    data = await fillDataSet(source);
    const reader = openFliptDatabase(source.url);
    before = await readFliptV1(reader);
    await reader.close();
    dir = mkdtempSync(join(tmpdir(), 'pennon-from-flipt-'));
    target = `file:${join(dir, 'pennon.db')}`;
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await source?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('copies every object and token in one command, and --verify finds no difference', async () => {
    const report = await migrateFromFlipt(source.url, configFor(target), systemClock(), { drop: false, verify: true, entities: 50 });
    expect(report.counts).toEqual(data.counts);
    expect(report.sourceSchemaVersion).toBe(SCHEMA_VERSIONS[version][dialect]);
    expect(report.verification?.differences).toEqual([]);
    expect(report.verification?.evaluations).toBeGreaterThan(1000);
    // The source is only read.
    const reader = openFliptDatabase(source.url);
    expect(await readFliptV1(reader)).toEqual(before);
    await reader.close();
    // A second run is refused: the target is no longer empty.
    await expect(migrateFromFlipt(source.url, configFor(target), systemClock(), { drop: false, verify: false, entities: 1 })).rejects.toThrow(/the Pennon database is not empty \(12 flags, 8 segments, 3 authentications, 1 namespaces besides default\): pass --drop/);
    const again = await migrateFromFlipt(source.url, configFor(target), systemClock(), { drop: true, verify: false, entities: 1 });
    expect(again.counts).toEqual(data.counts);
  });

  it('records each migration in the audit trail: one event with the counts, by the local user through the CLI', async () => {
    server = await startServer({ PENNON_DB_URL: target });
    const events = expectStatus(await server.api.get('/api/v1/audit/events?type=migration'), 200).events;
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ action: 'created', source: 'cli', metadata: { actor: { authentication: 'local' } }, payload: { dropped: true, counts: data.counts } });
    expect(events[1].payload).toMatchObject({ dropped: false, counts: data.counts });
    expect(events[0].payload.from).toMatch(new RegExp(dialect, 'i'));
    await server.stop();
  });

  it('serves it: tokens work as in Flipt, objects read back with their ids and times, evaluations for 2,000 entities unchanged', async () => {
    server = await startServer({ PENNON_DB_URL: target, PENNON_AUTHENTICATION_REQUIRED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true' });
    const as = (token: string) => new ApiClient(() => server.url, { authorization: `Bearer ${token}` });
    const api = as(data.tokens.admin);
    expect((await api.get('/api/v1/flags')).status).toBe(200);
    expect((await as(data.tokens.expired).get('/api/v1/flags')).status).toBe(401);
    expect((await as(data.tokens.scoped).get('/api/v1/namespaces/team/flags')).status).toBe(200);
    expect((await as(data.tokens.scoped).get('/api/v1/namespaces/default/flags')).status).toBe(401);
    // As in Flipt, a scoped token may not read the token API; the unscoped one reads its record.
    expect((await as(data.tokens.scoped).get('/auth/v1/self')).status).toBe(401);
    expect(expectStatus(await api.get('/auth/v1/self'), 200)).toMatchObject({ id: 'a-admin', metadata: { 'io.flipt.auth.token.name': 'ci' }, expiresAt: '2035-01-01T00:00:00Z' });
    expect(expectStatus(await api.get('/auth/v1/tokens/a-scoped'), 200)).toMatchObject({ method: 'METHOD_TOKEN', metadata: { 'io.flipt.auth.token.namespace': 'team' } });

    const flag = expectStatus(await api.get('/api/v1/namespaces/team/flags/flag-0'), 200);
    const sourceFlag = before.data.find((d) => d.key === 'team')!.flags.find((f) => f.key === 'flag-0')!;
    expect(flag.createdAt).toBe(new Date(sourceFlag.createdAt / 1000).toISOString().replace('Z', `${String(sourceFlag.createdAt % 1000).padStart(3, '0')}Z`));
    expect(flag.variants.map((v: { id: string; key: string; attachment: string }) => [v.id, v.key])).toEqual([['v-team-flag-0-red', 'red'], ['v-team-flag-0-green', 'green'], ['v-team-flag-0-blue', 'blue']]);
    expect(JSON.parse(flag.variants[0].attachment)).toEqual({ hex: '#f00', tags: ['a', 'b'] });
    const rules = expectStatus(await api.get('/api/v1/namespaces/team/flags/flag-0/rules'), 200).rules;
    const keysOf = (r: { segmentKey: string; segmentKeys: string[] }) => (r.segmentKeys.length > 0 ? r.segmentKeys : [r.segmentKey]);
    expect(rules.map((r: { id: string; segmentKey: string; segmentKeys: string[]; segmentOperator: string }) => [r.id, keysOf(r), r.segmentOperator])).toEqual([
      ['r-team-flag-0-0', ['beta'], 'OR_SEGMENT_OPERATOR'],
      ['r-team-flag-0-1', ['big', 'eu'], 'AND_SEGMENT_OPERATOR'],
      ['r-team-flag-0-2', ['eu', 'staff'], 'OR_SEGMENT_OPERATOR'],
    ]);
    expect(rules[0].distributions.map((d: { rollout: number }) => d.rollout)).toEqual([50, 30, 20]);
    const rollouts = expectStatus(await api.get('/api/v1/namespaces/default/flags/flag-4/rollouts'), 200).rules;
    expect(rollouts.map((r: { id: string; type: string }) => [r.id, r.type])).toEqual([['ro-default-flag-4-s', 'SEGMENT_ROLLOUT_TYPE'], ['ro-default-flag-4-t', 'THRESHOLD_ROLLOUT_TYPE']]);
    expect(rollouts[0].segment).toMatchObject({ segmentKeys: ['big', 'staff'], segmentOperator: 'AND_SEGMENT_OPERATOR', value: true });
    expect(rollouts[1].threshold).toEqual({ percentage: 37.5, value: false });
    const segment = expectStatus(await api.get('/api/v1/namespaces/default/segments/big'), 200);
    expect(segment.constraints.map((c: { id: string; type: string; operator: string }) => [c.id, c.type, c.operator])).toEqual([
      ['c-default-big-0', 'NUMBER_COMPARISON_TYPE', 'gte'],
      ['c-default-big-1', 'DATETIME_COMPARISON_TYPE', 'lt'],
    ]);
    if (version === 'v1.61.1') {
      expect(expectStatus(await api.get('/api/v1/flags/flag-1'), 200).metadata).toEqual({ owner: 'web', weight: 2 });
      expect(expectStatus(await api.get('/api/v1/flags/flag-2'), 200).defaultVariant?.key).toBe('blue');
    }

    // Every flag, 2,000 entities, the contexts its namespace's segments name: the server's answers
    // against Pennon's evaluator over Flipt's own rows.
    let compared = 0;
    for (const ns of before.data) {
      const compiled = compileNamespace(ns);
      const contexts = contextsFor(ns.segments);
      for (const flag of compiled.ordered) {
        const requests = Array.from({ length: ENTITIES }, (_, i) => ({ namespaceKey: ns.key, flagKey: flag.key, entityId: `user-${i}`, context: contexts[i % contexts.length] }));
        for (let i = 0; i < requests.length; i += 500) {
          const batch = requests.slice(i, i + 500);
          const answers = expectStatus(await api.post('/evaluate/v1/batch', { requests: batch }), 200).responses;
          for (const [j, req] of batch.entries()) {
            const got = answers[j];
            if (flag.type === 'BOOLEAN_FLAG_TYPE') {
              const want = evaluateBoolean(flag, req.entityId, req.context);
              expect([got.booleanResponse.enabled, got.booleanResponse.reason]).toEqual([want.enabled, want.reason]);
            } else {
              const want = evaluateVariant(flag, req.entityId, req.context);
              expect([got.variantResponse.match, got.variantResponse.variantKey, got.variantResponse.reason]).toEqual([want.match, want.variantKey, want.reason]);
            }
            compared++;
          }
        }
      }
    }
    expect(compared).toBe(12 * ENTITIES);
  }, 120_000);
});

function configFor(url: string) {
  return { url, protocol: '', host: '', port: 0, name: '', user: '', password: '', max_idle_conn: 2, max_open_conn: 0, conn_max_lifetime: 0, prepared_statements_enabled: true, statement_timeout: 5000, connect_timeout: 5000, startup_timeout: 0 } as const;
}
