import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import compress from '@fastify/compress';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Clock } from '../core';
import type { Metrics } from '../telemetry';
import { markFastifyRoutes } from '../telemetry/routes';
import type { Tracing } from '../telemetry/tracing';
import type { AuthService, Authenticator, FailedAuthentications, GithubSignIn, KubernetesExchange, OidcSignIn, SessionService } from '../auth';
import type { BulkExporter, BulkImporter } from '../ext';
import type { WebhookService } from '../webhook';
import type { LiveHub } from '../live';
import type { FlagSources } from './sources';
import { AuthGate, installAuthGate, type Authorization } from './auth-gate';
import { installJsonBody } from './body';
import { recordRoutes } from './route-table';
import { answerHeadLikeGet } from './head';
import { installCors } from './cors';
import type { HealthState } from './health';
import { installPretty } from './pretty';
import { errorHandler, handleFrameworkError, installNotFound } from './errors';
import { RequestErrorLog } from './error-log';
import { fastLane } from './fast-lane';
import { healthLane } from './health-lane';
import { Drain } from './drain';
import { secureServer } from './secure-server';
import { authRoutes } from './routes/auth';
import { signInRoutes } from './routes/sign-in';
import { installSessions } from './session';
import { kubernetesRoutes } from './routes/kubernetes';
import { clientSnapshotRoutes } from './routes/client-snapshot';
import { SnapshotBodies } from './routes/snapshot-body';
import { DigestedBodies } from './routes/client-v2-body';
import { clientV2Routes } from './routes/client-v2';
import { evaluationRoutes } from './routes/evaluate';
import { installMetrics, measured } from './http-metrics';
import { healthRoutes } from './routes/health';
import { metaRoutes } from './routes/meta';
import { legacyEvaluationRoutes } from './routes/legacy-evaluate';
import { ofrepRoutes } from './routes/ofrep';
import { exportRoutes } from './routes/export';
import { flagRoutes } from './routes/flags';
import { namespaceRoutes } from './routes/namespaces';
import { rolloutRoutes } from './routes/rollouts';
import { ruleRoutes } from './routes/rules';
import { segmentRoutes } from './routes/segments';
import { webhookRoutes } from './routes/webhook';
import { environmentRoutes } from './routes/environments';
import { importRoutes } from './routes/import';
import { namespaceEventRoutes } from './routes/namespace-events';
import { auditRoutes } from './routes/audit';
import { dashboardRoutes } from './dashboard';

/** Flipt's HTTP server timeouts: reading a request (headers included) 10 s, an idle or stalled socket 30 s. */
const READ_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

/** Request ids unique across instances (a random prefix) yet cheap per request (a counter). */
function requestIdSource(): () => string {
  const prefix = randomUUID().slice(0, 8);
  let n = 0;
  return () => `${prefix}-${(++n).toString(36)}`;
}

/** What the HTTP server serves, each built once by the composition root (internal/service/compose.ts). */
export interface AppDeps {
  config: Config;
  logger: Logger;
  /** The service's clock: the error log's intervals are timed by it. */
  clock: Clock;
  /** The bulk import route's importer (on a thread of its own: internal/service/import-thread.ts). */
  importer: BulkImporter;
  /** The bulk export route's exporter (on a thread of its own: internal/service/export-thread.ts). */
  exporter: BulkExporter;
  /** Where each request reads flags: the database, or the Git environment it names. */
  sources: FlagSources;
  authenticator: Pick<Authenticator, 'authenticate' | 'authenticateTicket' | 'ticketFor'>;
  auth: AuthService;
  /** The Kubernetes method's exchange; its route is registered only when there is one. */
  kubernetes: KubernetesExchange | null;
  /** Roles (authorization.*) and what becomes of a refusal: shared with the gRPC server. */
  authorization: Authorization;
  /** What /health reports (and whether requests are answered at all while starting). */
  health: HealthState;
  /** Prometheus metrics; without them there is no /metrics (`metrics.enabled: false`). */
  metrics: Metrics | null;
  /** OpenTelemetry traces (`tracing.enabled`). */
  tracing: Tracing | null;
  /** The inbound Git webhook; its route is registered only when there is one. */
  webhook: WebhookService | null;
  /** Every live stream (OFREP's event streams, the dashboard's, Flipt v2's snapshot stream). */
  live: LiveHub;
  /** Browser sign-in (OIDC, GitHub) and its sessions; null when neither method is enabled. */
  signIn: SignInServices | null;
}

export interface SignInServices {
  oidc: OidcSignIn | null;
  github: GithubSignIn | null;
  sessions: SessionService;
  /** The failed-authentication limiter the gate uses: refused sign-ins count too. */
  failures: FailedAuthentications;
}

/**
 * The HTTP server over the service's parts: one Fastify instance with every route family, the
 * one error handler and the JSON body rules. It builds nothing but HTTP.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  // An access-log line per request (and the per-request child logger it needs) costs ~25% of
  // throughput: Fastify gets the logger only when access logs are asked for.
  const accessLog = deps.config.log.access || deps.config.log.level === 'debug';
  const requestIds = requestIdSource();
  const { sources, health } = deps;
  const gate = deps.config.authentication.required ? new AuthGate(deps.config.authentication, deps.authenticator, deps.authorization) : null;
  const drain = new Drain();
  // Request failures: one line per kind per interval, not one per request (error-log.ts).
  const errors = new RequestErrorLog(deps.logger, { now: () => deps.clock.nowMicros() / 1000 });
  const lane = accessLog
    ? null
    : fastLane({
        sources,
        gate,
        errors,
        bodyLimit: deps.config.server.max_body_bytes,
        nextRequestId: requestIds,
        declineOrigins: deps.config.cors.enabled,
        declineSessions: deps.signIn !== null,
      });
  const app = Fastify({
    // The evaluation fast lane answers its routes before Fastify sees them (see fast-lane.ts).
    serverFactory: (handler) => {
      const served = lane ? (req: IncomingMessage, res: ServerResponse) => lane(req, res) || handler(req, res) : handler;
      // While starting or draining, /health and everything else are answered first.
      const early = healthLane(health, { nextRequestId: requestIds });
      const both = (req: IncomingMessage, res: ServerResponse) => early(req, res) || served(req, res);
      const counted = deps.metrics ? measured(both, deps.metrics) : both;
      // Answers say Connection: close while draining, and no connection is reset (drain.ts).
      const outermost = drain.handler(deps.tracing ? deps.tracing.requests(counted) : counted);
      const { server } = deps.config;
      // HTTPS (`server.protocol: https`): the same handler, HTTP/2 or HTTP/1.1 over TLS (secure-server.ts).
      const listener =
        server.protocol === 'https'
          ? secureServer({ cert: readFileSync(server.cert_file), key: readFileSync(server.cert_key) }, drain.Response, outermost)
          : createServer({ ServerResponse: drain.Response }, outermost);
      return drain.attach(listener);
    },
    ...(accessLog && { loggerInstance: deps.logger as FastifyBaseLogger, logController: new LogController({ disableRequestLogging: false }) }),
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 500 },
    bodyLimit: deps.config.server.max_body_bytes,
    requestIdHeader: 'x-request-id',
    genReqId: requestIds,
    frameworkErrors: handleFrameworkError,
    // HEAD is added to each GET route by answerHeadLikeGet (head.ts), not by Fastify.
    exposeHeadRoutes: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });

  app.setErrorHandler(errorHandler(errors));
  app.addHook('onClose', async () => errors.close());
  answerHeadLikeGet(app);
  recordRoutes(app);
  if (deps.metrics || deps.tracing) markFastifyRoutes(app);
  // The session's cookie parser and CSRF plugin come before the gate, which reads the cookie.
  const sessions = deps.signIn ? await installSessions(app, deps.config.authentication.session) : null;
  installAuthGate(app, gate, sessions);
  installNotFound(app, deps.logger);
  installJsonBody(app);
  if (deps.config.cors.enabled) await installCors(app, deps.config.cors);

  healthRoutes(app, health);
  if (deps.metrics) installMetrics(app, deps.metrics);
  metaRoutes(app, deps.config, sources.gitBacked);
  const { methods } = deps.config.authentication;
  authRoutes(app, deps.auth, {
    tokenMethod: methods.token.enabled,
    oidcProviders: deps.signIn?.oidc?.providers() ?? null,
    github: !!deps.signIn?.github,
    kubernetesMethod: deps.kubernetes !== null,
    jwtMethod: methods.jwt.enabled,
    roles: deps.authorization.roles,
  });
  if (deps.signIn && sessions) signInRoutes(app, { ...deps.signIn, cookies: sessions.cookies });
  if (deps.kubernetes) kubernetesRoutes(app, deps.kubernetes, deps.auth);
  await app.register(async (api) => {
    // gzip for large management responses (lists); evaluation answers are small and skip it.
    await api.register(compress, { threshold: 1024, encodings: ['gzip', 'deflate'] });
    installPretty(api);
    namespaceRoutes(api, sources);
    flagRoutes(api, sources);
    segmentRoutes(api, sources);
    ruleRoutes(api, sources);
    rolloutRoutes(api, sources);
    if (sources.gitBacked) environmentRoutes(api, sources, deps.config);
    legacyEvaluationRoutes(api, sources);
    auditRoutes(api, sources, deps.clock);
  });
  // The evaluation hot path: its own scope, without the management hooks.
  await app.register(async (scope) => evaluationRoutes(scope, sources));
  const ofrepStreams = { live: deps.live, streams: deps.config.streams, gate, authenticator: deps.authenticator };
  await app.register(async (scope) => ofrepRoutes(scope, sources, { cacheEnabled: deps.config.cache.enabled, cacheTtlMs: deps.config.cache.ttl }, errors, ofrepStreams));
  // The client snapshot compresses its own bodies, once per snapshot (routes/snapshot-body.ts).
  const snapshotBodies = new SnapshotBodies();
  app.decorate('snapshotBodies', snapshotBodies);
  await app.register(async (scope) => clientSnapshotRoutes(scope, sources, snapshotBodies));
  // Flipt v2's client snapshot and its stream: one document per snapshot, shared by every stream.
  const digestedBodies = new DigestedBodies();
  app.decorate('digestedBodies', digestedBodies);
  const clientV2 = { sources, bodies: digestedBodies, live: deps.live, maxBufferedBytes: deps.config.streams.max_buffered_bytes, errors };
  await app.register(async (scope) => clientV2Routes(scope, clientV2));
  // The inbound Git webhook: its own scope, which reads bodies as raw bytes.
  const webhook = deps.webhook;
  if (webhook) await app.register(async (scope) => webhookRoutes(scope, webhook, health));
  // Pennon's bulk import: its own scope, which reads bodies as text up to server.max_import_bytes.
  const importDeps = { importer: deps.importer, readOnly: deps.config.storage.read_only || sources.gitBacked, maxBytes: deps.config.server.max_import_bytes, errors };
  await app.register(async (scope) => importRoutes(scope, importDeps));
  // Pennon's bulk export: streamed, and only where flags are in the database.
  if (!sources.gitBacked) await app.register(async (scope) => exportRoutes(scope, { exporter: deps.exporter }));
  // Pennon's namespace event stream (SSE, held open through the LiveHub): what keeps the dashboard live.
  const eventDeps = { sources, live: deps.live, streams: deps.config.streams, authenticator: deps.authenticator };
  await app.register(async (scope) => namespaceEventRoutes(scope, eventDeps));
  // The dashboard: one static route per built file, in a scope of its own (no API hooks).
  if (deps.config.ui.enabled) await app.register(async (scope) => dashboardRoutes(scope, deps.logger));

  await app.ready();
  app.server.requestTimeout = READ_TIMEOUT_MS;
  app.server.headersTimeout = READ_TIMEOUT_MS;
  app.server.setTimeout(SOCKET_TIMEOUT_MS);
  return app;
}
