import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../internal/core';
import { ManualClock } from '../../support/clock';
import { expectStatus, startServer, type TestServer } from '../../support/server';
import { PrivateRedis } from '../../support/redis-server';
import { until } from '../../support/wait';

/**
 * Two instances on one database: how fast a write through one reaches evaluations on the
 * other — by the revision poll alone, and with the Redis cache's invalidations — and what
 * happens to requests when Redis dies under them.
 */

async function enabledOn(server: TestServer, ns: string): Promise<boolean> {
  const res = expectStatus(await server.api.post('/evaluate/v1/boolean', { namespaceKey: ns, flagKey: 'b', entityId: 'e', context: {} }), 200);
  return res.enabled as boolean;
}

/**
 * Bounds far above what each mechanism needs (a 1 s poll, a pub/sub message) and far below what
 * would mean it is not working (the 60 s poll where pub/sub is tested): a loaded machine is slow,
 * not wrong.
 */
const BOUND_MS = 10_000;

/** Flips the flag through `writer`; returns how long until `reader` evaluates the new state (ms). */
async function propagation(writer: TestServer, reader: TestServer, ns: string, to: boolean): Promise<number> {
  expectStatus(await writer.api.put(`/api/v1/namespaces/${ns}/flags/b`, { name: 'B', enabled: to }), 200);
  const start = performance.now();
  while ((await enabledOn(reader, ns)) !== to) {
    if (performance.now() - start > BOUND_MS) throw new Error('the write never reached the other instance');
    await new Promise((r) => setTimeout(r, 2));
  }
  return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function pair(env: Record<string, string>, clock?: Clock): Promise<[TestServer, TestServer]> {
  const a = await startServer(env, { clock });
  const b = await startServer({ ...env, PENNON_DB_URL: a.config.db.url || `file:${join(a.dir, 'pennon.db')}` }, { clock });
  return [a, b];
}

async function seed(server: TestServer, ns: string): Promise<void> {
  expectStatus(await server.api.post('/api/v1/namespaces', { key: ns, name: ns }), 200);
  expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key: 'b', name: 'B', type: 'BOOLEAN_FLAG_TYPE', enabled: false }), 200);
}

describe('write propagation between instances', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('without a cache, within the revision poll bound (evaluation.refresh_interval, 1 s by default)', async () => {
    const [a, b] = await pair({});
    try {
      await seed(a, 'poll');
      expect(await enabledOn(b, 'poll')).toBe(false); // b holds a snapshot now
      const times: number[] = [];
      for (let i = 0; i < 4; i++) times.push(await propagation(a, b, 'poll', i % 2 === 0));
      console.info(`propagation by poll (refresh_interval 1s): median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`);
      expect(Math.max(...times)).toBeLessThan(BOUND_MS);
    } finally {
      await b.stop();
      await a.stop();
    }
  });

  it('with the Redis cache, in milliseconds — the poll is set to a minute so it cannot be what delivers', async () => {
    const env = {
      PENNON_CACHE_ENABLED: 'true',
      PENNON_CACHE_BACKEND: 'redis',
      PENNON_CACHE_REDIS_URL: redis.url,
      PENNON_CACHE_REDIS_PREFIX: 'prop',
      PENNON_EVALUATION_REFRESH_INTERVAL: '60s',
    };
    const [a, b] = await pair(env);
    try {
      await seed(a, 'pubsub');
      // b learns of the namespace's creation by the message too: no poll runs within the test.
      const evaluated = async () => (await b.api.post('/evaluate/v1/boolean', { namespaceKey: 'pubsub', flagKey: 'b', entityId: 'e', context: {} })).status === 200;
      await until(evaluated, 'b knows the new namespace');
      expect(await enabledOn(b, 'pubsub')).toBe(false);
      const times: number[] = [];
      for (let i = 0; i < 10; i++) times.push(await propagation(i % 2 ? b : a, i % 2 ? a : b, 'pubsub', i % 2 === 0));
      console.info(`propagation by redis pub/sub: median ${median(times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`);
      // The poll runs once a minute here: anything well under that came by pub/sub.
      expect(Math.max(...times)).toBeLessThan(BOUND_MS);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});

const AUTH_ON_REDIS = (redis: PrivateRedis) => ({
  PENNON_CACHE_ENABLED: 'true',
  PENNON_CACHE_BACKEND: 'redis',
  PENNON_CACHE_REDIS_URL: redis.url,
  PENNON_AUTHENTICATION_REQUIRED: 'true',
  PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
  PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'bootstrap-secret-token',
});

describe('Redis dying under load', () => {
  let redis: PrivateRedis;
  let a: TestServer;
  let b: TestServer;
  let token: string;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    [a, b] = await pair(AUTH_ON_REDIS(redis));
    a.api = a.api.withHeaders({ authorization: 'Bearer bootstrap-secret-token' });
    b.api = b.api.withHeaders({ authorization: 'Bearer bootstrap-secret-token' });
    await seed(a, 'load');
    token = expectStatus(await a.api.post('/auth/v1/method/token', { name: 'app' }), 200).clientToken;
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await redis?.stop();
  });

  it('fails no request while Redis is killed and restarted; health reports the outage; writes still propagate', async () => {
    let stop = false;
    const failures: string[] = [];
    let requests = 0;
    const app = b.api.withHeaders({ authorization: `Bearer ${token}` });
    const traffic = (async () => {
      let i = 0;
      while (!stop) {
        const res =
          i++ % 5 === 0
            ? await a.api.put('/api/v1/namespaces/load/flags/b', { name: `B${i}`, enabled: i % 2 === 0 })
            : await app.post('/evaluate/v1/boolean', { namespaceKey: 'load', flagKey: 'b', entityId: `e${i}`, context: {} });
        requests++;
        if (res.status !== 200) failures.push(`${res.status} ${res.text}`);
      }
    })();
    const health = async () => expectStatus(await b.api.get('/health'), 200) as { status: string; problems?: string[] };
    // Traffic under way, then Redis killed under it (by PID) until b has noticed, and the traffic
    // carried on through the outage; then Redis back until b has reconnected.
    await until(() => requests >= 20, 'traffic flows');
    await redis.stop();
    await until(async () => /cache unavailable/.test((await health()).problems?.join(' ') ?? ''), 'b reports the outage');
    const during = await health();
    expect(during.status).toBe('SERVING');
    const sinceOutage = requests;
    const cacheErrors = async () => Number(/service_cache_error_total\{cache="redis"\} (\d+)/.exec((await b.api.get('/metrics')).text)?.[1] ?? 0);
    // b's token lookups (1 s local cache) and snapshot reads go to Redis, and fail, meanwhile.
    await until(async () => requests >= sinceOutage + 20 && (await cacheErrors()) > 0, 'traffic flows during the outage, b counting cache errors');
    await redis.restart();
    await until(async () => (await health()).problems === undefined, 'b has reconnected');
    const sinceBack = requests;
    await until(() => requests >= sinceBack + 20, 'traffic flows after the outage');
    stop = true;
    await traffic;
    expect(failures).toEqual([]);
    expect(await health()).toEqual({ status: 'SERVING' });
    expect(await cacheErrors()).toBeGreaterThan(0);
    // After recovery, writes reach b again (by pub/sub, or the 1 s poll for what it missed).
    expect(await propagation(a, b, 'load', true)).toBeLessThan(BOUND_MS);
    expect(await propagation(a, b, 'load', false)).toBeLessThan(BOUND_MS);
  });
});

describe('shared token revocation', () => {
  let redis: PrivateRedis;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    // A stopped clock: token lookups cached locally never age, so only a shared revocation can
    // make b refuse a token deleted through a.
    [a, b] = await pair(AUTH_ON_REDIS(redis), new ManualClock('stopped'));
    a.api = a.api.withHeaders({ authorization: 'Bearer bootstrap-secret-token' });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await redis?.stop();
  });

  it('a token deleted through one instance is refused by the other (shared revocation, not the cache ageing)', async () => {
    const created = expectStatus(await a.api.post('/auth/v1/method/token', { name: 'short-lived' }), 200);
    const client = b.api.withHeaders({ authorization: `Bearer ${created.clientToken}` });
    expect((await client.get('/api/v1/namespaces')).status).toBe(200); // cached on b now, for good: the clock is stopped
    expectStatus(await a.api.delete(`/auth/v1/tokens/${created.authentication.id}`), 200);
    await until(async () => (await client.get('/api/v1/namespaces')).status === 401, 'b refuses the deleted token');
  });
});
