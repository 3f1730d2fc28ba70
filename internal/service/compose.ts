import type { Logger } from 'pino';
import { AuthService, Authenticator, FailedAuthentications, JwtVerifier, KubernetesExchange, KubernetesVerifier, RoleResolver, SessionService, startCleanup, type AuthenticatorOptions, type SharedAuthCache } from '../auth';
import type { Cache } from '../cache';
import type { Config } from '../config';
import type { BulkExporter, BulkImporter } from '../ext';
import { systemClock, type Clock } from '../core';
import type { GitEnvironments } from '../git';
import type { Authorization, FlagSources, HealthState, SignInServices } from '../server';
import type { SnapshotCache } from '../snapshots';
import { LiveHub } from '../live';
import type { Change, Connection, DatabaseBreaker, Store } from '../storage';
import type { Metrics } from '../telemetry';
import type { Tracing } from '../telemetry/tracing';
import type { WebhookService } from '../webhook';
import { CloseHooks, type CloseHook } from './close-hooks';
import { relayWebhookSyncs, type WorkerRole } from './cluster-worker';
import { auditSinkSelections } from '../audit/selection';
import { cliOrigin, openExistingStore, openPreparedStore, openStore, sqliteFileOf, type OpenedStore } from './database';
import { threadedExporter } from './export-thread';
import { threadedImporter } from './import-thread';

/**
 * The composition root (Flipt's `internal/cmd/grpc.go` is the model): every part of the service
 * is built here, once, from the configuration, each given only what it uses; each registers how
 * it closes as it is built, and `close()` closes them in the reverse order. `serve`, every CLI
 * command and the tests build through here. A new part is one more step below and one hook.
 *
 * A command asks only for what it uses (`only`): its database (never traced, never cached) and,
 * for tokens, the token service. The whole service's heavier parts (the cache, the Git client,
 * metrics, the HTTP server's pieces) are loaded only when the whole service is built.
 */

/** How a command finds its database: `prepared` creates and migrates a fresh one; `existing` refuses anything but a migrated one. */
export type DatabaseMode = 'as-is' | 'prepared' | 'existing';

export interface CommandDeps {
  clock?: Clock;
  only: 'database' | 'tokens';
  database: DatabaseMode;
}

export interface ServiceDeps {
  logger: Logger;
  clock?: Clock;
  /** Set in a worker of `serve`'s cluster (server.workers > 1): how it reaches the others. */
  worker?: WorkerRole | null;
}

export interface DatabaseServices {
  config: Config;
  clock: Clock;
  connection: Connection;
  store: Store;
  /** Registers a hook that close() runs before every hook registered so far. */
  onClose(name: string, hook: CloseHook): void;
  /** Closes every part built, last built first; once. */
  close(): Promise<void>;
}

export interface TokenServices extends DatabaseServices {
  authenticator: Authenticator;
  auth: AuthService;
}

/** Something that runs once the database is ready (serve runs them in order); it may return how to stop. */
export interface StartStep {
  name: string;
  start(): Promise<CloseHook | void> | CloseHook | void;
}

export interface Services extends TokenServices {
  logger: Logger;
  tracing: Tracing | null;
  health: HealthState;
  /** Roles (`authorization`) and what becomes of a refusal (counted, logged, audited): the gate's, HTTP and gRPC. */
  authorization: Authorization;
  metrics: Metrics | null;
  cache: Cache | null;
  snapshots: SnapshotCache;
  environments: GitEnvironments | null;
  sources: FlagSources;
  /** The inbound Git webhook; null without Git environments or without a licence granting it. */
  webhook: WebhookService | null;
  /** The bulk import route's importer: a thread per import (import-thread.ts). */
  importer: BulkImporter;
  /** The bulk export route's exporter: a thread per export (export-thread.ts). */
  exporter: BulkExporter;
  /** The database's circuit breaker (null on SQLite): probed from start-up's end, reported on /health. */
  breaker: DatabaseBreaker | null;
  /** Every live stream (SSE, flagd's and Flipt v2's streams): one limit, one heartbeat, ended first at shutdown. */
  live: LiveHub;
  /** Browser sign-in (OIDC, GitHub) and its sessions: only when one of the methods is enabled. */
  signIn: SignInServices | null;
  /** Failed authentication per client address (authentication.rate_limit): the sign-in routes report theirs here too. */
  failures: FailedAuthentications;
  /** The Kubernetes method's exchange, when `authentication.methods.kubernetes` is enabled. */
  kubernetes: KubernetesExchange | null;
  /** What starts once the database is ready, in order: database probe, instance link, bootstrap token, cleanup, poller, Git. */
  startup: StartStep[];
}

export async function compose(config: Config, deps: CommandDeps & { only: 'database' }): Promise<DatabaseServices>;
export async function compose(config: Config, deps: CommandDeps & { only: 'tokens' }): Promise<TokenServices>;
export async function compose(config: Config, deps: ServiceDeps): Promise<Services>;
export async function compose(config: Config, deps: CommandDeps | ServiceDeps): Promise<DatabaseServices> {
  const clock = deps.clock ?? systemClock();
  const hooks = new CloseHooks('logger' in deps ? deps.logger : undefined);
  try {
    return 'only' in deps ? await composeCommand(config, clock, deps, hooks) : await composeService(config, clock, deps.logger, hooks, deps.worker ?? null);
  } catch (err) {
    // What was built before the failure is closed; the failure is what the caller hears of.
    await hooks.close().catch(() => undefined);
    throw err;
  }
}

/** Token lookups (shared through the cache, when there is one) and the token service revoking through them. */
function tokenServices(store: Store, clock: Clock, shared: SharedAuthCache | null, options: AuthenticatorOptions = {}): { authenticator: Authenticator; auth: AuthService } {
  const authenticator = new Authenticator(store, clock, 1000, shared, options);
  const auth = new AuthService(store, clock, (id, hash) => authenticator.revoke(id, hash), (hash) => authenticator.created(hash));
  return { authenticator, auth };
}

function withHooks<T extends Pick<OpenedStore, 'connection'>>(opened: T, hooks: CloseHooks) {
  hooks.add('database', () => opened.connection.close());
  return { ...opened, onClose: (name: string, hook: CloseHook) => hooks.add(name, hook), close: () => hooks.close() };
}

async function composeCommand(config: Config, clock: Clock, deps: CommandDeps, hooks: CloseHooks): Promise<DatabaseServices | TokenServices> {
  const sinks = auditSinkSelections(config.audit);
  const open = {
    'as-is': async () => openStore(config.db, clock, null, sinks),
    prepared: () => openPreparedStore(config.db, clock, sinks),
    existing: () => openExistingStore(config.db, clock, sinks),
  }[deps.database];
  // A command's calls each try the database: its breaker is never started (serve's probe is).
  const opened = await open();
  const { connection } = opened;
  // A command's writes are filed in the audit trail under the local user, through the CLI.
  const store = opened.store.as(cliOrigin());
  const database = { config, clock, ...withHooks({ connection, store }, hooks) };
  return deps.only === 'tokens' ? { ...database, ...tokenServices(database.store, clock, null) } : database;
}

async function composeService(config: Config, clock: Clock, logger: Logger, hooks: CloseHooks, worker: WorkerRole | null): Promise<Services> {
  const [parts, { startTracing }, { HealthState, DeniedAttempts }, { Metrics }, { linkInstances, SharedSnapshotSource }, { SnapshotCache }, { webhookService }, audit] = await Promise.all([
    import('./parts'),
    import('../telemetry/tracing'),
    import('../server'),
    import('../telemetry'),
    import('../cache'),
    import('../snapshots'),
    import('../webhook'),
    import('../audit'),
  ]);
  // A sink the configuration names wrongly (a template that does not parse, a URL egress refuses)
  // stops the start before anything opens, the key named.
  const { warnings: auditWarnings } = await audit.checkAuditSinks(config.audit);
  for (const warning of auditWarnings) logger.warn(warning);

  // Tracing first: the store's queries and the app's requests are traced from their creation.
  const tracing = config.tracing.enabled ? await startTracing(config.tracing, logger) : null;
  if (tracing) hooks.add('tracing', () => tracing.shutdown()); // last: the last requests' spans are exported too
  const auditSinks = auditSinkSelections(config.audit);
  const database = withHooks(openStore(config.db, clock, tracing, auditSinks), hooks);
  const { connection, store, breaker } = database;
  const health = new HealthState();
  // The probe's verdict reaches /health within a second of a partition, logged once each way.
  breaker?.onChange((failure) => {
    health.databaseChecked(failure);
    if (failure) logger.error({ err: failure }, 'the database does not answer its health check: writes and namespace loads fail at once (503) until it does; evaluations answer from the snapshots held');
    else logger.info('the database answers its health check again');
  });

  const metrics = config.metrics.enabled
    ? new Metrics(config.metrics.namespace, { maxFlagSeries: config.metrics.max_flag_series, maxNamespaceSeries: config.metrics.max_namespace_series, perFlagLatency: config.metrics.per_flag_latency })
    : null;
  if (metrics) {
    hooks.add('evaluation metrics', metrics.recordEvaluations());
    hooks.add('audit metrics', store.onAudited((events) => metrics.audit.eventsWritten(events)));
    // The outbox is the database's: one process of a cluster reports it.
    if (!worker || worker.leader) metrics.audit.trackBacklog(auditSinks.map((sink) => sink.name), () => store.auditBacklog(), () => clock.nowMicros());
    if (connection.poolStats) metrics.trackPool(() => connection.poolStats?.() ?? null);
    // In a cluster, a scrape of any worker answers for every worker.
    if (worker) {
      worker.renderWith(() => metrics.text());
      metrics.combineWith(() => worker.combinedScrape());
    }
  }

  const { cache, redis } = parts.openCache(config, logger, metrics);
  if (cache) hooks.add('cache', () => cache.close());
  health.watchCache(redis);

  const snapshots = new SnapshotCache(redis ? new SharedSnapshotSource(store, redis, config.cache.ttl) : store, {
    pollInterval: config.evaluation.refresh_interval,
    logger,
    onPoll: (err) => health.databaseChecked(err),
  });
  health.watchSnapshots(() => snapshots.holdsAny());
  store.onChange((change) => snapshots.apply(change));

  // Failed authentication per address, from every door (HTTP, the fast lane, gRPC, sign-ins).
  const failures = new FailedAuthentications(config.authentication.rate_limit, clock, {
    failed: (reason) => metrics?.auth.failed(reason),
    refused: () => metrics?.auth.refused(),
    limited: (address, count, retryAfterSeconds) =>
      logger.warn({ address, failures: count, retryAfterSeconds }, 'an address failed to authenticate too often: its requests are refused (429) until its window ends'),
  });
  metrics?.auth.trackAddresses(() => failures.tracked);
  const warn = (message: string, err: unknown) => logger.warn({ err }, message);
  const { methods } = config.authentication;
  // A public key file that cannot be used fails the start here, naming the key.
  const jwt = methods.jwt.enabled ? JwtVerifier.fromConfig(methods.jwt, clock, { groupsClaim: config.authorization.groups_claim, warn }) : null;
  // Token lookups are shared for at most the same 1 s as the local cache: a token deleted where
  // no revocation is published (`pennon token delete` in-process, SQL) must stop working as fast.
  const { authenticator, auth } = tokenServices(store, clock, cache && { cache, ttlMs: Math.min(config.cache.ttl, 1000) }, {
    failures,
    jwt,
    onLookup: metrics ? () => metrics.auth.lookedUp() : undefined,
  });
  let kubernetes: KubernetesExchange | null = null;
  if (methods.kubernetes.enabled) {
    // The cluster's CA is read here: a missing one fails the start, naming ca_path.
    const verifier = new KubernetesVerifier(methods.kubernetes, clock, warn);
    hooks.add('kubernetes client', () => verifier.close());
    kubernetes = new KubernetesExchange(verifier, failures);
  }
  const denials = new DeniedAttempts({ logger, clock, metrics, store });
  hooks.add('denied requests', async () => {
    denials.close();
    await denials.settled();
  });
  const authorization: Authorization = { roles: new RoleResolver(config.authorization), denials };

  const environments = await parts.openEnvironments(config, logger, metrics);
  if (environments) hooks.add('git environments', () => environments.stop());
  const sources = await parts.flagSources(config, { store, snapshots }, environments);
  // In a cluster, a delivery's fetch happens in every worker (each holds its own repository copy).
  const webhookEnvironments = environments && (worker ? relayWebhookSyncs(environments.environments, worker.bus) : environments.environments);
  const webhook = webhookEnvironments && parts.webhookLicensed(config, logger, clock) ? webhookService({ environments: webhookEnvironments, metrics, logger }) : null;

  const tokens = config.authentication.methods.token;
  const startup: StartStep[] = [];
  if (breaker) startup.push({ name: 'database probe', start: () => breaker.start() });
  // Writes and revocations reach the other instances through Redis, and theirs reach this one;
  // without Redis, the other workers of this `serve` through their supervisor.
  const bus = redis ?? worker?.bus ?? null;
  // The audit sinks' delivery, once the database is ready: woken by this process's writes (and,
  // below, by the other instances' announced changes); it polls every second besides.
  // Leases make it run once per service however many processes start it; in a cluster, the leader starts it.
  let delivery: { wake(): void; hold(): () => void } | null = null;
  if (!worker || worker.leader) {
    startup.push({
      name: 'audit delivery',
      start: async () => {
        const running = await audit.startAuditDelivery({ audit: config.audit, store, clock, logger, metrics: metrics?.audit ?? null });
        delivery = running;
        const unsubscribe = store.onAudited(() => running.wake());
        return async () => {
          unsubscribe();
          await running.close();
        };
      },
    });
  }
  if (bus) {
    const link = {
      bus,
      local: { onChange: store.onChange.bind(store), onRevoke: authenticator.onRevoke.bind(authenticator) },
      remote: {
        changed: (change: Change) => {
          snapshots.apply(change, false);
          snapshots.refreshSoon(change.ns);
          delivery?.wake();
        },
        revoked: (id: string) => authenticator.forget(id),
        recovered: () => void snapshots.poll(),
      },
      logger,
    };
    startup.push({ name: 'instance link', start: () => linkInstances(link) });
  }
  const signIn = await signInServices(config, store, clock, logger, worker, failures);
  // Expired sessions go as expired tokens do, each method by its own `cleanup`; once per service.
  for (const [name, method] of [['oidc', 'METHOD_OIDC'], ['github', 'METHOD_GITHUB']] as const) {
    const settings = config.authentication.methods[name];
    if (settings.enabled && (!worker || worker.leader)) startup.push({ name: `${name} session cleanup`, start: () => startCleanup(auth, settings.cleanup, logger, method) });
  }
  if (tokens.enabled) {
    // Several instances starting together create one: under the database's cross-process lock.
    startup.push({ name: 'bootstrap token', start: () => connection.withMigrationLock(() => bootstrapToken(auth, tokens, logger)) });
    // Once per service: in a cluster, the leader cleans up.
    if (!worker || worker.leader) startup.push({ name: 'token cleanup', start: () => startCleanup(auth, tokens.cleanup, logger) });
  }
  if (kubernetes && (!worker || worker.leader)) {
    startup.push({ name: 'kubernetes token cleanup', start: () => startCleanup(auth, methods.kubernetes.cleanup, logger, 'METHOD_KUBERNETES') });
  }
  // Every namespace's snapshot (or evaluation.warm_namespaces') built before health says SERVING.
  startup.push({
    name: 'warm snapshots',
    start: async () => {
      const started = performance.now();
      const { namespaces, flags } = await snapshots.warm(config.evaluation.warm_namespaces);
      logger.info({ namespaces, flags, ms: Math.round(performance.now() - started) }, 'snapshots loaded');
    },
  });
  startup.push({
    name: 'snapshot poller',
    start: () => {
      snapshots.start();
      return () => snapshots.stop();
    },
  });
  // The first fetch of every Git storage (a failure is logged and left to the poller), then polling.
  if (environments) startup.push({ name: 'git polling', start: async () => environments.start() });

  const threaded = threadedImporter(config.db, store, auditSinks);
  // On a SQLite file an import thread holds the write lock for its whole write, and a write from
  // this thread waits for it synchronously: the audit delivery's bookkeeping holds off meanwhile.
  const importer: BulkImporter = sqliteFileOf(config.db)
    ? (body, options, origin) => {
        const release = delivery?.hold();
        return threaded(body, options, origin).finally(() => release?.());
      }
    : threaded;
  const exporter = threadedExporter(config.db, store);
  const live = new LiveHub({
    maxStreams: config.streams.max,
    heartbeatMs: config.streams.heartbeat_interval,
    onError: (err, namespace) => logger.error({ err, namespace }, 'a live stream failed to take an update'),
  });
  hooks.add('live streams', () => live.close());
  metrics?.trackLiveStreams(() => ({ streams: live.size, watches: live.watches }));
  return { config, clock, logger, ...database, tracing, health, metrics, cache, snapshots, authenticator, auth, environments, sources, webhook, importer, exporter, live, signIn, failures, kubernetes, authorization, startup };
}

/** OIDC and GitHub sign-in, each only when enabled (openid-client is loaded only then). */
async function signInServices(config: Config, store: Store, clock: Clock, logger: Logger, worker: WorkerRole | null, failures: FailedAuthentications): Promise<SignInServices | null> {
  const { methods, session } = config.authentication;
  if (!methods.oidc.enabled && !methods.github.enabled) return null;
  // A CSRF token is checked with the key of the process that made it: without a shared key,
  // another worker or instance refuses it.
  if (session.csrf.key === '' && worker) logger.warn('authentication.session.csrf.key is empty with server.workers > 1: a CSRF token handed out by one worker is refused by the others; set the key');
  const oidc = methods.oidc.enabled ? new (await import('../auth/oidc')).OidcSignIn(methods.oidc, { groupsClaim: config.authorization.groups_claim, logger }) : null;
  const readOrganizations = config.authorization.roles.some((binding) => binding.match.github.length > 0);
  const github = methods.github.enabled ? new (await import('../auth/github')).GithubSignIn(methods.github, { readOrganizations }) : null;
  return { oidc, github, sessions: new SessionService(store, clock, session.token_lifetime), failures };
}

/** The first token, when none exists. Its value is logged only when it was generated here. */
async function bootstrapToken(auth: AuthService, tokens: Config['authentication']['methods']['token'], logger: Logger): Promise<void> {
  const result = await auth.bootstrap(tokens);
  if (!result.created) return;
  if (result.token === null) {
    logger.info({ id: result.id }, 'created the bootstrap token from authentication.methods.token.bootstrap.token (its value is not logged)');
  } else {
    logger.warn({ id: result.id, clientToken: result.token }, 'generated a bootstrap token: store it now, it will not be shown again');
  }
}
