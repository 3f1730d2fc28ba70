import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, POSTGRES_URL, postgresAdmin, unless } from '../../support/backends';
import { expectStatus, useServer } from '../../support/server';

/**
 * The database connection cut in the middle of a test: every backend of the test database is
 * terminated and new connections are refused (`ALLOW_CONNECTIONS false`, on a database of its
 * own). Evaluations keep answering from the snapshot, writes get 503 with Flipt's body, /health
 * says what is wrong, and everything recovers without a restart.
 */
backends(); // prints the notice when PostgreSQL is not configured

const database = `pennon_outage_${randomBytes(4).toString('hex')}`;
const admin = (statement: string) => postgresAdmin(statement);

async function cut(): Promise<void> {
  await admin(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
  await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`);
}

async function restore(): Promise<void> {
  await admin(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`);
}

describe.skipIf(POSTGRES_URL === '')(unless('PostgreSQL outage under a running server', { PENNON_TEST_POSTGRES_URL: POSTGRES_URL }), () => {
  const TOKEN = 'outage-bootstrap-token';
  const databaseUrl = () => {
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${database}`;
    return url.toString();
  };

  // Hooks after the server's run first: the database is given back, the server stops, then it is dropped.
  beforeAll(() => admin(`CREATE DATABASE ${database}`));
  afterAll(() => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  const server = useServer(() => ({
    PENNON_DB_URL: databaseUrl(),
    PENNON_AUTHENTICATION_REQUIRED: 'true',
    PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
    PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: TOKEN,
    PENNON_EVALUATION_REFRESH_INTERVAL: '200ms',
  }));
  const app = server.api.withHeaders({ authorization: `Bearer ${TOKEN}` });
  beforeAll(async () => {
    expectStatus(await app.post('/api/v1/flags', { key: 'f', name: 'F', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
  });
  afterAll(() => restore().catch(() => undefined));

  const evaluate = () => app.post('/evaluate/v1/boolean', { flagKey: 'f', entityId: 'e', context: {} });

  it('keeps evaluating, refuses writes with 503, reports it on /health, and recovers without a restart', async () => {
    expect(expectStatus(await evaluate(), 200).enabled).toBe(true);
    await cut();

    // Writes: Unavailable, Flipt's body, no SQL or driver text.
    const write = await app.put('/api/v1/flags/f', { name: 'F', enabled: false });
    expect(write.status, write.text).toBe(503);
    expect(write.body).toEqual({ code: 14, message: expect.any(String), details: [] });
    expect(write.text).not.toMatch(/select|update|insert|pg_|ECONN|terminat/i);

    // Evaluations: from the snapshot, for the whole outage, with the token checked before.
    const failures: string[] = [];
    const until = Date.now() + 1500;
    let answered = 0;
    while (Date.now() < until) {
      const res = await evaluate();
      if (res.status !== 200 || res.body.enabled !== true) failures.push(`${res.status} ${res.text}`);
      answered++;
    }
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(20);

    const health = expectStatus(await server.api.get('/health'), 200);
    expect(health.status).toBe('SERVING');
    expect(health.problems?.[0]).toMatch(/^database unavailable \([A-Za-z0-9_]+\) since .*writes are refused/);

    await restore();
    const start = Date.now();
    let recovered = await app.put('/api/v1/flags/f', { name: 'F', enabled: false });
    while (recovered.status !== 200 && Date.now() - start < 10_000) {
      await new Promise((r) => setTimeout(r, 100));
      recovered = await app.put('/api/v1/flags/f', { name: 'F', enabled: false });
    }
    expect(recovered.status, recovered.text).toBe(200);
    console.info(`writes accepted again ${Date.now() - start} ms after the database allowed connections`);
    expect(expectStatus(await evaluate(), 200).enabled).toBe(false); // read-your-writes again
    const healthy = Date.now();
    while (expectStatus(await server.api.get('/health'), 200).problems && Date.now() - healthy < 5000) await new Promise((r) => setTimeout(r, 50));
    expect(expectStatus(await server.api.get('/health'), 200)).toEqual({ status: 'SERVING' });
  });
});
