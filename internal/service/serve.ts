import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { systemClock, type Clock } from '../core';
import { buildApp, HealthState } from '../server';
import { AuthService, Authenticator, startCleanup } from '../auth';
import { linkInstances, MemoryCache, RedisCache, SharedSnapshotSource, type Cache } from '../cache';
import { Metrics, type CacheCounters } from '../telemetry';
import { startTracing } from '../telemetry/tracing';
import { SnapshotCache } from '../snapshots';
import { prepareSchema, type Store } from '../storage';
import { openStore } from './database';
import { startGrpcHealth } from '../server/grpc-health';
import { whenReachable, StartCancelled } from './startup';
import { featureStatus, loadLicense, USING_TEST_ISSUER } from '../license';
import type { GitEnvironments } from '../git';
import { gitSources, openEnvironments } from './environments';

export { StartCancelled };

export interface StartOptions {
  /** Aborting it while the service waits for its database at start ends the start (StartCancelled). */
  signal?: AbortSignal;
}

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  /** The address the HTTP server listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  /** The port the gRPC health service listens on (server.grpc_port, or the one picked for 0). */
  grpcPort: number;
  /** The Git environments (`environments` in the configuration), or null when none are configured. */
  environments: GitEnvironments | null;
  /** Health turns NOT_SERVING, stops accepting, lets in-flight requests finish (bounded by shutdown_timeout), closes the store. */
  stop(): Promise<void>;
}

/** Whether the webhook route is served: only with a licence that grants it (else a warning says why). */
function webhookLicensed(config: Config, logger: Logger, clock: Clock): boolean {
  const licence = loadLicense({ key: config.license.key, file: config.license.file }, new Date(Math.floor(clock.nowMicros() / 1000)));
  if (licence.state !== 'none' && USING_TEST_ISSUER) logger.warn('this build verifies licences against the test issuer (built without PENNON_LICENSE_ISSUER_KEY): not for production');
  if (licence.state === 'valid') logger.info(licence.reason);
  else if (licence.state !== 'none') logger.warn({ licence: licence.state, problem: licence.problem }, licence.reason);
  const status = featureStatus(licence, 'webhook');
  if (!status.enabled) logger.warn(`the Git webhook endpoint is not served: ${status.reason}`);
  return status.enabled;
}

/**
 * The first token, when none exists (several instances starting together run this under the
 * database's cross-process lock). Its value is logged only when it was generated here.
 */
async function bootstrapToken(auth: AuthService, tokens: Config['authentication']['methods']['token'], logger: Logger): Promise<void> {
  const result = await auth.bootstrap(tokens);
  if (!result.created) return;
  if (result.token === null) {
    logger.info({ id: result.id }, 'created the bootstrap token from authentication.methods.token.bootstrap.token (its value is not logged)');
  } else {
    logger.warn({ id: result.id, clientToken: result.token }, 'generated a bootstrap token: store it now, it will not be shown again');
  }
}

/** The configured cache, if any; Redis being down at start is not an error (it is retried). */
function openCache(config: Config, logger: Logger, counters: CacheCounters | null): { cache: Cache | null; redis: RedisCache | null } {
  if (!config.cache.enabled) return { cache: null, redis: null };
  if (config.cache.backend === 'memory') return { cache: new MemoryCache(config.cache.memory.eviction_interval, { counters: counters ?? undefined }), redis: null };
  const redis = new RedisCache(config.cache.redis, logger, counters);
  logger.info({ redis: redis.target }, 'using the redis cache');
  return { cache: redis, redis };
}

/**
 * Starts the service: the gRPC health service and the HTTP listener first (both answering
 * NOT_SERVING while starting), then the database — waited for while it is unreachable —
 * migrated when fresh, the bootstrap token, the poller; then health turns SERVING.
 * `serve` and the end-to-end tests use this; nothing here knows about signals or exit codes.
 */
export async function startService(config: Config, logger: Logger, clock: Clock = systemClock(), options: StartOptions = {}): Promise<RunningService> {
  // Tracing first: the store's queries and the app's requests are traced from their creation.
  const tracing = config.tracing.enabled ? await startTracing(config.tracing, logger) : null;
  const health = new HealthState(null, 'starting');
  const grpc = await startGrpcHealth(health, config.server.host, config.server.grpc_port, logger);
  const { connection, store } = openStore(config.db, clock, tracing);
  let openedCache: Cache | null = null;
  let stopRecording = () => undefined as void;
  let app: FastifyInstance | undefined;
  let environments: GitEnvironments | null = null;
  try {
    const metrics = config.metrics.enabled ? new Metrics(config.metrics.namespace) : null;
    environments = await openEnvironments(config, logger, metrics);
    const webhooks = environments && webhookLicensed(config, logger, clock) ? { config, environments } : null;
    const sources = environments ? await gitSources(environments) : undefined;
    stopRecording = metrics?.recordEvaluations() ?? stopRecording;
    if (metrics && connection.poolStats) metrics.trackPool(() => connection.poolStats?.() ?? null);
    const { cache, redis } = openCache(config, logger, metrics);
    openedCache = cache;
    health.watchCache(redis);
    const snapshots = new SnapshotCache(redis ? new SharedSnapshotSource(store, redis, config.cache.ttl) : store, {
      pollInterval: config.evaluation.refresh_interval,
      logger,
      onPoll: (err) => health.databaseChecked(err),
    });
    health.watchSnapshots(() => snapshots.holdsAny());
    store.onChange((change) => snapshots.apply(change));
    // Token lookups are shared for at most the same 1 s as the local cache: a token deleted where
    // no revocation is published (`pennon token delete` in-process, SQL) must stop working as fast.
    const authenticator = new Authenticator(store, clock, 1000, cache && { cache, ttlMs: Math.min(config.cache.ttl, 1000) });
    const auth = new AuthService(store, clock, (id, hash) => authenticator.revoke(id, hash));
    app = await buildApp({ config, store, clock, logger, snapshots, sources, auth, authenticator, health, metrics, tracing, webhooks });
    await app.listen({ host: config.server.host, port: config.server.http_port }).catch((err: { code?: string }) => {
      throw err.code === 'EADDRINUSE' ? new Error(`server.http_port ${config.server.http_port} on ${config.server.host} is in use (EADDRINUSE)`) : err;
    });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.server.http_port;
    const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

    const { applied } = await whenReachable(() => prepareSchema(connection), connection, health, logger, options.signal);
    if (applied.length > 0) logger.info({ migrations: applied }, 'database schema created');
    if (options.signal?.aborted) throw new StartCancelled();
    if (redis) linkInstances({ bus: redis, store, snapshots, authenticator, logger });
    const tokens = config.authentication.methods.token;
    let stopCleanup = () => undefined as void;
    if (tokens.enabled) {
      await connection.withMigrationLock(() => bootstrapToken(auth, tokens, logger));
      stopCleanup = startCleanup(auth, tokens.cleanup, logger);
    }
    snapshots.start();
    // The first fetch of every Git storage (a failure is logged and left to the poller), then polling.
    await environments?.start();
    health.ready();
    logger.info({ url, grpcPort: grpc.port, database: connection.describe }, 'pennon is serving');
    const server = app;
    const gitEnvironments = environments;

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        health.drain(); // NOT_SERVING at once, on HTTP and gRPC (Watch streams hear it now)
        const timer = setTimeout(() => {
          logger.warn('shutdown timeout reached; closing remaining connections');
          server.server.closeAllConnections();
        }, config.server.shutdown_timeout);
        // Keep-alive connections that finish their last request while we drain would otherwise
        // linger until the timeout: close them as soon as they turn idle.
        const reaper = setInterval(() => server.server.closeIdleConnections(), 50);
        try {
          await server.close();
        } finally {
          clearTimeout(timer);
          clearInterval(reaper);
          snapshots.stop();
          await gitEnvironments?.stop();
          stopRecording();
          stopCleanup();
          await grpc.close();
          await cache?.close();
          await connection.close();
          await tracing?.shutdown(); // after the last request: its spans are exported too
        }
      })());
    return { app, store, url, grpcPort: grpc.port, environments, stop };
  } catch (err) {
    stopRecording();
    health.drain();
    await app?.close();
    await environments?.stop();
    await grpc.close();
    await openedCache?.close();
    await connection.close();
    await tracing?.shutdown();
    throw err;
  }
}
