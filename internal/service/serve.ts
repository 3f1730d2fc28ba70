import type { FastifyInstance } from 'fastify';
import { buildApp, drainServer, type DrainReport } from '../server';
import { startGrpcServer, type GrpcServer } from '../server/grpc/server';
import type { GitEnvironments } from '../git';
import { prepareSchema, type Store } from '../storage';
import type { Services } from './compose';
import { whenReachable, StartCancelled } from './startup';

export { StartCancelled };

export interface StartOptions {
  /** Aborting it while the service waits for its database at start ends the start (StartCancelled). */
  signal?: AbortSignal;
  /**
   * Open the ports only once ready (a worker starting while others serve: it takes no connection
   * it would answer "starting"). Otherwise they open first and answer NOT_SERVING meanwhile.
   */
  listenWhenReady?: boolean;
}

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  /** Every part compose() built. */
  services: Services;
  /** The address the HTTP server listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  /** The port the gRPC health service listens on (server.grpc_port, or the one picked for 0). */
  grpcPort: number;
  /** The Git environments (`environments` in the configuration), or null when none are configured. */
  environments: GitEnvironments | null;
  /**
   * Health turns NOT_SERVING, the listener closes, in-flight requests finish (bounded by
   * shutdown_timeout; what is still in flight then is cut and counted), every part closes.
   */
  stop(): Promise<DrainReport>;
}

/**
 * Serves what compose() built: the gRPC health service and the HTTP listener first (both
 * answering NOT_SERVING while starting), then the database — waited for while it is unreachable —
 * migrated when fresh, then the start steps (instance link, bootstrap token, token cleanup,
 * poller, Git polling), each registering how it stops; then health turns SERVING. The service
 * is the caller's no more: a failed start closes it, and `stop()` does. `serve` and the tests
 * use this; nothing here knows about signals or exit codes.
 */
export async function startService(services: Services, options: StartOptions = {}): Promise<RunningService> {
  const { config, logger, health, connection } = services;
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp(services);
    const listening = listen(services, app);
    const ports = options.listenWhenReady ? null : await listening();

    const { applied } = await whenReachable(() => prepareSchema(connection), {
      connection,
      health,
      logger,
      signal: options.signal,
      limitMs: config.db.startup_timeout,
    });
    if (applied.length > 0) logger.info({ migrations: applied }, 'database schema created');
    if (options.signal?.aborted) throw new StartCancelled();
    for (const step of services.startup) {
      const stop = await step.start();
      if (stop) services.onClose(step.name, stop);
    }
    const { url, grpcPort, grpc } = ports ?? (await listening());
    health.ready();
    logger.info({ url, grpcPort, database: connection.describe }, 'pennon is serving');
    const server = app;

    let stopping: Promise<DrainReport> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        health.drain(); // NOT_SERVING at once, on HTTP and gRPC (Watch streams hear it now)
        // Live streams end first (cleanly, each with its last frame): they are requests that never finish.
        services.live.close();
        try {
          // Every request answered (Connection: close) or, at shutdown_timeout, cut and counted.
          // gRPC stays up meanwhile (health answers NOT_SERVING to probes), then its calls in
          // flight get what is left of shutdown_timeout (at least a moment) before they are cut.
          const drainStarted = performance.now();
          const report = await drainServer(server.server, config.server.shutdown_timeout, logger);
          await grpc.close(Math.max(GRPC_LAST_GRACE_MS, config.server.shutdown_timeout - (performance.now() - drainStarted)));
          await server.close();
          return report;
        } finally {
          await services.close();
        }
      })());
    return { app, store: services.store, services, url, grpcPort, environments: services.environments, stop };
  } catch (err) {
    health.drain();
    await app?.close();
    await services.close().catch((closing: unknown) => logger.error({ err: closing }, 'closing after a failed start failed'));
    throw err;
  }
}

/** Opens the gRPC health service and the HTTP listener; the HTTP server's URL and the gRPC port. */
/** The least a gRPC call in flight is given once HTTP has drained. */
const GRPC_LAST_GRACE_MS = 250;

function listen(services: Services, app: FastifyInstance): () => Promise<{ url: string; grpcPort: number; grpc: GrpcServer }> {
  const { config, health, logger } = services;
  return async () => {
    const api = { ...services, operations: app.operations };
    const grpc = await startGrpcServer(health, api, config.server.host, config.server.grpc_port, logger);
    services.onClose('grpc server', () => grpc.close());
    // As Flipt: HTTPS on https_port instead of HTTP on http_port.
    const https = config.server.protocol === 'https';
    const [portKey, configured] = https ? ['https_port', config.server.https_port] : ['http_port', config.server.http_port];
    await app.listen({ host: config.server.host, port: configured }).catch((err: { code?: string }) => {
      throw err.code === 'EADDRINUSE' ? new Error(`server.${portKey} ${configured} on ${config.server.host} is in use (EADDRINUSE)`) : err;
    });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : configured;
    const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host;
    return { url: `${https ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`, grpcPort: grpc.port, grpc };
  };
}
