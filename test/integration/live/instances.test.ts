import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, POSTGRES_URL, unless } from '../../support/backends';
import { FaultProxy } from '../../support/fault-proxy';
import { PrivateRedis } from '../../support/redis-server';
import { expectStatus, startServer, type TestServer } from '../../support/server';
import { SseClient } from '../../support/sse';

/**
 * A write on instance A reaches the live streams held by instance B, two instances on one
 * PostgreSQL database: through Redis pub/sub when the Redis cache is on (within 1 s; the poll is
 * set to a minute, so it cannot be what delivers), else through the revision poll
 * (`evaluation.refresh_interval` + 1 s); and when Redis goes silent under B, the poll delivers
 * the change instead — none is lost.
 */

const STREAM = '/ofrep/v1/_stream/default/common/events';

async function flip(writer: TestServer, to: boolean): Promise<number> {
  expectStatus(await writer.api.put('/api/v1/namespaces/common/flags/b', { name: 'B', enabled: to }), 200);
  return performance.now();
}

/** The time from a write on `writer` to the event on `stream` (ms). */
async function propagation(writer: TestServer, stream: SseClient, to: boolean, boundMs: number): Promise<number> {
  const wrote = await flip(writer, to);
  const event = await stream.next(boundMs);
  expect(event.type).toBe('refetchEvaluation');
  return performance.now() - wrote;
}

describe.skipIf(POSTGRES_URL === '')(unless('live streams across instances on PostgreSQL', { PENNON_TEST_POSTGRES_URL: POSTGRES_URL }), () => {
  let redis: PrivateRedis;
  let proxy: FaultProxy;
  const started: TestServer[] = [];
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    const { port } = new URL(redis.url);
    proxy = await FaultProxy.start({ host: '127.0.0.1', port: Number(port) });
  });
  afterAll(async () => {
    for (const server of started.reverse()) await server.stop();
    for (const cleanup of cleanups) await cleanup();
    await proxy?.close();
    await redis?.stop();
  });

  async function pair(envA: Record<string, string>, envB: Record<string, string>): Promise<[TestServer, TestServer]> {
    const database = await backend('postgres').create();
    cleanups.push(database.cleanup);
    const a = await startServer({ ...envA, PENNON_DB_URL: database.url });
    started.push(a);
    const b = await startServer({ ...envB, PENNON_DB_URL: database.url });
    started.push(b);
    expectStatus(await a.api.post('/api/v1/namespaces', { key: 'common', name: 'common' }), 200);
    expectStatus(await a.api.post('/api/v1/namespaces/common/flags', { key: 'b', name: 'B', type: 'BOOLEAN_FLAG_TYPE', enabled: false }), 200);
    return [a, b];
  }

  async function follow(server: TestServer): Promise<SseClient> {
    const stream = new SseClient(`${server.url}${STREAM}`);
    await stream.opened;
    await stream.next(); // the version held at connection
    return stream;
  }

  it('with Redis: within 1 s by pub/sub (the poll runs once a minute)', async () => {
    const redisEnv = (prefix: string, url: string) => ({
      PENNON_CACHE_ENABLED: 'true',
      PENNON_CACHE_BACKEND: 'redis',
      PENNON_CACHE_REDIS_URL: url,
      PENNON_CACHE_REDIS_PREFIX: prefix,
      PENNON_EVALUATION_REFRESH_INTERVAL: '60s',
    });
    const [a, b] = await pair(redisEnv('live-a', redis.url), redisEnv('live-a', redis.url));
    const stream = await follow(b);
    try {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) times.push(await propagation(a, stream, i % 2 === 0, 1000));
      console.info(`write on A → event on B's stream, by Redis: max ${Math.max(...times).toFixed(0)} ms`);
      expect(Math.max(...times)).toBeLessThan(1000);
    } finally {
      stream.close();
    }
  });

  it('without Redis: within refresh_interval + 1 s by the revision poll', async () => {
    const env = { PENNON_EVALUATION_REFRESH_INTERVAL: '500ms' };
    const [a, b] = await pair(env, env);
    const stream = await follow(b);
    try {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) times.push(await propagation(a, stream, i % 2 === 0, 1500));
      console.info(`write on A → event on B's stream, by the poll (500 ms): max ${Math.max(...times).toFixed(0)} ms`);
      expect(Math.max(...times)).toBeLessThan(1500);
    } finally {
      stream.close();
    }
  });

  it('Redis silent under B: the poll delivers the change, none is lost', async () => {
    const env = (url: string) => ({
      PENNON_CACHE_ENABLED: 'true',
      PENNON_CACHE_BACKEND: 'redis',
      PENNON_CACHE_REDIS_URL: url,
      PENNON_CACHE_REDIS_PREFIX: 'live-outage',
      PENNON_EVALUATION_REFRESH_INTERVAL: '500ms',
    });
    const [a, b] = await pair(env(redis.url), env(proxy.rewrite(redis.url)));
    const stream = await follow(b);
    try {
      expect(await propagation(a, stream, true, 1500)).toBeLessThan(1500);
      await proxy.set('blackhole');
      // B hears nothing from Redis now; the poll still finds A's write.
      expect(await propagation(a, stream, false, 1500)).toBeLessThan(1500);
      await proxy.set('pass');
      expect(await propagation(a, stream, true, 1500)).toBeLessThan(1500);
    } finally {
      await proxy.set('pass');
      stream.close();
    }
  });
});
