import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCache } from '../../../internal/cache';
import { configSchema } from '../../../internal/config';
import { Metrics } from '../../../internal/telemetry';
import { PrivateRedis } from '../../support/redis-server';
import { until } from '../../support/wait';

/** The Redis cache against a real redis-server of its own, including one killed by PID mid-test. */

const redisConfig = (url: string) => configSchema.parse({ cache: { redis: { url, prefix: `t-${randomUUID().slice(0, 8)}` } } }).cache.redis;

function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const metrics = new Metrics('test', { defaultMetrics: false });
const errorsCounted = async () => Number(/test_cache_error_total\{cache="redis"\} (\d+)/.exec(await metrics.text())?.[1] ?? 0);

describe('RedisCache', () => {
  let server: PrivateRedis;
  beforeAll(async () => {
    server = await PrivateRedis.start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('stores, expires and deletes values under its prefix', async () => {
    const cache = new RedisCache(redisConfig(server.url), pino({ level: 'silent' }));
    await until(() => cache.available, 'the cache is available');
    await cache.set('a', 'one', 60_000);
    await cache.set('short', 'two', 50);
    expect(await cache.get('a')).toBe('one');
    expect(await cache.get('missing')).toBeUndefined();
    await new Promise((r) => setTimeout(r, 120));
    expect(await cache.get('short')).toBeUndefined();
    await cache.delete('a');
    expect(await cache.get('a')).toBeUndefined();
    await cache.close();
  });

  it('keeps instances with different prefixes apart, and carries broadcasts between instances of one prefix', async () => {
    const config = redisConfig(server.url);
    const otherConfig = redisConfig(server.url);
    const a = new RedisCache(config, pino({ level: 'silent' }));
    const b = new RedisCache(config, pino({ level: 'silent' }));
    const other = new RedisCache(otherConfig, pino({ level: 'silent' }));
    const heard: string[] = [];
    const heardByOther: string[] = [];
    b.subscribe((m) => heard.push(m));
    other.subscribe((m) => heardByOther.push(m));
    await until(() => a.available && b.available && other.available, 'every cache is available');
    // Both subscriptions have reached the server (RedisCache's channel is `<prefix>:changes`).
    const probe = new Redis(server.url);
    const subscribers = async (prefix: string) => Number(((await probe.pubsub('NUMSUB', `${prefix}:changes`)) as [string, number])[1]);
    await until(async () => (await subscribers(config.prefix)) === 1 && (await subscribers(otherConfig.prefix)) === 1, 'Redis reports both subscriptions');
    probe.disconnect();
    a.publish('hello');
    await until(() => heard.length === 1, 'the message is heard');
    expect(heard).toEqual(['hello']);
    await a.set('k', 'v', 60_000);
    expect(await b.get('k')).toBe('v');
    expect(await other.get('k')).toBeUndefined();
    expect(heardByOther).toEqual([]);
    await Promise.all([a.close(), b.close(), other.close()]);
  });

  it('never fails an operation while Redis is down, logs the outage once, counts errors, and recovers by itself', async () => {
    const { logger, lines } = capturingLogger();
    const cache = new RedisCache(redisConfig(server.url), logger, metrics);
    let recovered = 0;
    cache.subscribe(() => undefined);
    cache.onRecover(() => recovered++);
    await until(() => cache.available, 'the cache is available');
    await cache.set('k', 'v', 60_000);

    await server.stop(); // by PID
    await until(() => !cache.available, 'the cache is unavailable');
    const before = await errorsCounted();
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      expect(await cache.get('k')).toBeUndefined();
      await cache.set('k2', 'v', 1000);
      await cache.delete('k');
      cache.publish('lost');
    }
    // Fails fast: nothing waits for a dead server (60 waits for the 500 ms command timeout take 30 s).
    expect(Date.now() - started).toBeLessThan(10_000);
    await new Promise((r) => setTimeout(r, 300)); // several reconnect attempts happen meanwhile
    expect(await errorsCounted()).toBeGreaterThanOrEqual(before + 60);
    expect(lines.filter((l) => /unavailable/.test(l.msg))).toHaveLength(1);

    await server.restart();
    await until(() => cache.available, 'the cache is available again', 15_000);
    await until(() => recovered > 0, 'recovery is reported', 15_000);
    await cache.set('k3', 'back', 60_000);
    expect(await cache.get('k3')).toBe('back');
    expect(lines.filter((l) => /is back/.test(l.msg))).toHaveLength(1);
    await cache.close();
  });

  it('starts while Redis is unreachable and works once it appears', async () => {
    await server.stop();
    const cache = new RedisCache(redisConfig(server.url), pino({ level: 'silent' }));
    expect(await cache.get('x')).toBeUndefined();
    await server.restart();
    await until(() => cache.available, 'the cache is available again', 15_000);
    await cache.set('x', '1', 60_000);
    expect(await cache.get('x')).toBe('1');
    await cache.close();
  });
});
