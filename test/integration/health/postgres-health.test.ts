import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backends, POSTGRES_URL, postgresAdmin, unless } from '../../support/backends';
import { freePort } from '../../support/cli';
import { expectStatus, startServer, type TestServer } from '../../support/server';
import { HealthClient } from '../../support/grpc-health-client';

/**
 * Health when the store is down, on a PostgreSQL database of its own that the test cuts
 * (`ALLOW_CONNECTIONS false` + terminating its backends, as in the outage suite):
 * - running, no snapshot held → NOT_SERVING (nothing could be answered); back when it returns;
 * - running, a snapshot held → SERVING with the problem listed (evaluations still answer);
 * - started while the database refuses connections → NOT_SERVING (starting) until it allows them.
 */
backends(); // prints the notice when PostgreSQL is not configured

const database = `pennon_health_${randomBytes(4).toString('hex')}`;
const cut = async () => {
  await postgresAdmin(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
  await postgresAdmin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`);
};
const restore = () => postgresAdmin(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`);
const dbUrl = () => {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  return url.toString();
};

async function eventually<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = await probe();
  }
  return value;
}

describe.skipIf(POSTGRES_URL === '')(unless('health with the PostgreSQL store down', { PENNON_TEST_POSTGRES_URL: POSTGRES_URL }), () => {
  const clients: HealthClient[] = [];
  beforeAll(async () => postgresAdmin(`CREATE DATABASE ${database}`));
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await restore();
  });
  afterAll(async () => postgresAdmin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));

  it('is NOT_SERVING while the database is down and no snapshot is held, SERVING (with the problem) once one is', async () => {
    // Nothing warmed at start (a namespace that does not exist is all it loads): no snapshot is held until an evaluation.
    const server: TestServer = await startServer({ PENNON_DB_URL: dbUrl(), PENNON_EVALUATION_REFRESH_INTERVAL: '200ms', PENNON_EVALUATION_WARM_NAMESPACES: 'not-a-namespace' });
    try {
      const grpc = new HealthClient(server.service.grpcPort);
      clients.push(grpc);
      const watch = grpc.watch('');
      await watch.until('SERVING');

      // No evaluation yet: nothing to answer from.
      await cut();
      const down = await eventually(() => server.api.get('/health'), (res) => res.status === 503);
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ status: 'NOT_SERVING', problems: [expect.stringMatching(/^database unavailable \(\w+\) since .*: no snapshot held to answer from$/)] });
      expect(await grpc.check('')).toBe('NOT_SERVING');
      await watch.until('NOT_SERVING');

      await restore();
      const up = await eventually(() => server.api.get('/health'), (res) => res.status === 200 && res.body.problems === undefined);
      expect(up.body).toEqual({ status: 'SERVING' });
      // The Watch update travels on its own stream: it may land just after /health turned.
      await eventually(async () => watch.statuses.length, (n) => n >= 3, 5000);
      expect(watch.statuses).toEqual(['SERVING', 'NOT_SERVING', 'SERVING']);

      // With a snapshot held, the same outage keeps the instance SERVING.
      expectStatus(await server.api.post('/api/v1/flags', { key: 'f', name: 'F', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
      expect(expectStatus(await server.api.post('/evaluate/v1/boolean', { flagKey: 'f', entityId: 'e', context: {} }), 200).enabled).toBe(true);
      await cut();
      const degraded = await eventually(() => server.api.get('/health'), (res) => res.body?.problems !== undefined);
      expect(degraded.status).toBe(200);
      expect(degraded.body.problems[0]).toMatch(/evaluations are answered from the last snapshot; writes are refused$/);
      expect(await grpc.check('')).toBe('SERVING');
      expect(expectStatus(await server.api.post('/evaluate/v1/boolean', { flagKey: 'f', entityId: 'e', context: {} }), 200).enabled).toBe(true);
      expect(watch.statuses).toEqual(['SERVING', 'NOT_SERVING', 'SERVING']);
      await restore();
    } finally {
      await server.stop();
    }
  });

  it('starts while the database refuses connections: NOT_SERVING until it allows them, then SERVING', async () => {
    await cut();
    const [httpPort, grpcPort] = await Promise.all([freePort(), freePort()]);
    const starting = startServer({ PENNON_SERVER_HTTP_PORT: String(httpPort), PENNON_SERVER_GRPC_PORT: String(grpcPort), PENNON_DB_URL: dbUrl() });
    let service: TestServer | undefined;
    try {
      const grpc = new HealthClient(grpcPort);
      clients.push(grpc);
      const watch = grpc.watch('');
      await watch.until('NOT_SERVING');
      const waiting = await eventually(
        () => fetch(`http://127.0.0.1:${httpPort}/health`).then(async (res) => ({ status: res.status, body: (await res.json()) as { status: string; problems?: string[] } }), () => null),
        (res) => (res?.body.problems?.length ?? 0) >= 2,
      );
      expect(waiting).toEqual({ status: 503, body: { status: 'NOT_SERVING', problems: ['starting', expect.stringMatching(/^database unavailable \(55000\) since .*: waiting for it$/)] } });

      await restore();
      const ready = performance.now();
      service = await starting;
      await watch.until('SERVING');
      console.info(`SERVING ${(performance.now() - ready).toFixed(0)} ms after the database allowed connections (start-up retries back off to 5 s)`);
      expect(await fetch(`${service.url}/health`).then((res) => res.json())).toEqual({ status: 'SERVING' });
      expect(watch.statuses).toEqual(['NOT_SERVING', 'SERVING']);
    } finally {
      await (service ?? (await starting.catch(() => undefined)))?.stop();
    }
  });
});
