import { readFileSync } from 'node:fs';
import { Redis, ReplyError, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { CacheConfig } from '../config';
import type { CacheCounters } from '../telemetry';
import { CircuitBreaker } from './breaker';
import type { Broadcast, Cache } from './types';

type RedisConfig = CacheConfig['redis'];

/** Longest a request ever waits for Redis when `net_timeout` is not set. */
const DEFAULT_COMMAND_TIMEOUT_MS = 500;
/** How often a tripped cache probes Redis (PING, bounded by the command timeout) to close again. */
export const PROBE_INTERVAL_MS = 1000;

/** ioredis options for Flipt's `cache.redis.*` settings. */
export function redisOptions(config: RedisConfig): RedisOptions {
  const commandTimeout = config.net_timeout > 0 ? config.net_timeout : DEFAULT_COMMAND_TIMEOUT_MS;
  const options: RedisOptions = {
    // Fail at once while disconnected instead of queueing: the caller falls back to the database.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout,
    connectTimeout: Math.max(commandTimeout, 2000),
    // Keep trying for ever, at most every 2 s: the cache comes back by itself.
    retryStrategy: (times) => Math.min(100 * times, 2000),
    lazyConnect: false,
  };
  if (config.url === '') {
    Object.assign(options, {
      host: config.host,
      port: config.port,
      db: config.db,
      ...(config.username !== '' && { username: config.username }),
      ...(config.password !== '' && { password: config.password }),
    });
  }
  if (config.require_tls || config.url.startsWith('rediss:')) {
    const ca = config.ca_cert_bytes !== '' ? config.ca_cert_bytes : config.ca_cert_path !== '' ? readFileSync(config.ca_cert_path, 'utf8') : undefined;
    options.tls = { ...(ca && { ca }), rejectUnauthorized: !config.insecure_skip_tls };
  }
  return options;
}

/** Where a Redis URL points, without its credentials (for logs). */
function describe(config: RedisConfig): string {
  if (config.url === '') return `${config.host}:${config.port}/${config.db}`;
  try {
    const url = new URL(config.url);
    return `${url.hostname}:${url.port || 6379}${url.pathname}`;
  } catch {
    return 'redis';
  }
}

/**
 * The shared cache and the message channel between instances. Every operation is bounded by
 * the command timeout and never throws: while Redis is away the instance runs on the database,
 * logs the outage once (and its end once), counts each failed operation in
 * `<metrics.namespace>_cache_error_total`, and reconnects by itself. A silent Redis (a
 * partition: the connection stays up, nothing answers) costs one command timeout, not one per
 * request: the first command that times out trips a circuit breaker, every later operation
 * falls back at once, and a background PING every PROBE_INTERVAL_MS closes it again.
 */
export class RedisCache implements Cache, Broadcast {
  readonly kind = 'redis';
  readonly target: string;
  private readonly client: Redis;
  private subscriber: Redis | null = null;
  private readonly prefix: string;
  private readonly channel: string;
  private down = false;
  private lastOpWarning = 0;
  private readonly recoverHandlers: (() => void)[] = [];
  private readonly messageHandlers: ((message: string) => void)[] = [];
  private readonly breaker: CircuitBreaker;

  constructor(
    config: RedisConfig,
    private readonly logger: Logger,
    private readonly counters: CacheCounters | null = null,
  ) {
    const options = redisOptions(config);
    this.client = config.url === '' ? new Redis(options) : new Redis(config.url, options);
    this.prefix = config.prefix === '' ? '' : `${config.prefix}:`;
    this.channel = `${this.prefix}changes`;
    this.target = describe(config);
    this.watch(this.client, 'cache');
    this.breaker = new CircuitBreaker(() => this.client.ping().then((pong) => pong === 'PONG'), PROBE_INTERVAL_MS, {
      opened: (err) =>
        this.logger.warn({ redis: this.target, err: (err as Error).message, probeEveryMs: PROBE_INTERVAL_MS }, 'redis cache not answering: working from the database until a probe gets an answer'),
      closed: () => {
        this.logger.info({ redis: this.target }, 'redis cache answers again');
        // Pub/sub messages may have been held or lost meanwhile: let the owner catch up.
        for (const handler of this.recoverHandlers) handler();
      },
    });
  }

  private watch(connection: Redis, role: string): void {
    let wasReady = false;
    connection.on('error', (err: Error) => this.markDown(err, role));
    connection.on('close', () => {
      if (wasReady) this.markDown(new Error('connection closed'), role);
    });
    connection.on('ready', () => {
      const reconnected = wasReady;
      wasReady = true;
      if (this.down && this.client.status === 'ready') {
        this.down = false;
        this.logger.info({ redis: this.target }, 'redis cache is back');
      }
      // Pub/sub messages sent while the subscriber was away are lost: let the owner catch up.
      if (reconnected && role === 'subscriber') for (const handler of this.recoverHandlers) handler();
    });
  }

  private markDown(err: Error, role: string): void {
    if (this.down) return;
    this.down = true;
    this.logger.warn({ redis: this.target, role, err: err.message }, 'redis cache unavailable: working from the database until it returns');
  }

  private failed(err: unknown): void {
    this.counters?.error(this.kind);
    // A slow command on a live connection: warn at most once a minute.
    const now = Date.now();
    if (!this.down && !this.breaker.isOpen && now - this.lastOpWarning > 60_000) {
      this.lastOpWarning = now;
      this.logger.warn({ redis: this.target, err: (err as Error).message }, 'redis cache operation failed; using the database');
    }
  }

  /**
   * `awaited`: a caller waits for the answer (a request's lookup), so an open breaker skips it.
   * A publish is sent whatever the breaker says: nobody waits for it, and a change message
   * dropped because one command was slow (a stalled process trips the breaker too) would leave
   * other instances stale until their poll.
   */
  private async attempt<T>(op: (client: Redis) => Promise<T>, fallback: T, awaited = true): Promise<T> {
    if (this.client.status !== 'ready' || (awaited && this.breaker.isOpen)) {
      this.counters?.error(this.kind);
      return fallback;
    }
    try {
      return await op(this.client);
    } catch (err) {
      // An error reply (a wrong type, a full memory) is about that command; anything else — a
      // timeout, a lost connection — would hold the next ones too.
      if (!(err instanceof ReplyError)) this.breaker.trip(err);
      this.failed(err);
      return fallback;
    }
  }

  async get(key: string): Promise<string | undefined> {
    const value = await this.attempt((c) => c.get(this.prefix + key), undefined as string | null | undefined);
    if (value === undefined) return undefined; // failed: already counted as an error
    if (value === null) this.counters?.miss(this.kind);
    else this.counters?.hit(this.kind);
    return value ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.attempt((c) => c.set(this.prefix + key, value, 'PX', Math.max(1, Math.round(ttlMs))), undefined);
  }

  async delete(key: string): Promise<void> {
    await this.attempt((c) => c.del(this.prefix + key), undefined);
  }

  publish(message: string): void {
    void this.attempt((c) => c.publish(this.channel, message), undefined, false);
  }

  subscribe(handler: (message: string) => void): void {
    this.messageHandlers.push(handler);
    if (this.subscriber) return;
    // Its own connection (a subscribed connection can do nothing else), queueing the SUBSCRIBE
    // until connected; ioredis subscribes again after every reconnect.
    const subscriber = this.client.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
    this.subscriber = subscriber;
    this.watch(subscriber, 'subscriber');
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      for (const h of this.messageHandlers) h(message);
    });
    subscriber.subscribe(this.channel).catch(() => undefined);
  }

  onRecover(handler: () => void): void {
    this.recoverHandlers.push(handler);
  }

  /** Whether the cache is in use: connected, and answering (for /health). */
  get available(): boolean {
    return this.client.status === 'ready' && !this.breaker.isOpen;
  }

  async close(): Promise<void> {
    this.breaker.stop();
    // disconnect(), not quit(): quit waits for a server that may be gone.
    this.subscriber?.disconnect();
    this.client.disconnect();
  }
}
