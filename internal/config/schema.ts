import { z } from 'zod';
import { auditSchema } from './audit';
import { duration, secret } from './kinds';
import { authorizationSchema, authRateLimitSchema, sessionSchema, signInMethodsShape } from './sign-in';

/**
 * The configuration tree. Keys follow Flipt's configuration where Flipt has the same setting
 * (Flipt's `internal/config/*.go`), so an operator's Flipt config mostly reads unchanged.
 * Every object is strict: an unknown key is an error that names it.
 */

export { SECRET_SCHEMAS, DURATION_SCHEMAS, duration } from './kinds';

const port = (fallback: number) => z.number().int().min(0).max(65535).default(fallback);

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

const log = z.strictObject({
  level: z
    .string()
    .default('info')
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(LOG_LEVELS)),
  encoding: z.enum(['console', 'json']).optional(),
  file: z.string().default(''),
  access: z.boolean().default(false),
});

const server = z.strictObject({
  host: z.string().default('0.0.0.0'),
  /** Flipt's: `https` serves the API over TLS on https_port (HTTP/1.1) and gRPC with TLS on grpc_port. */
  protocol: z.enum(['http', 'https']).default('http'),
  http_port: port(8080),
  https_port: port(443),
  /** The certificate chain and private key (PEM files) for `protocol: https`. */
  cert_file: z.string().default(''),
  cert_key: z.string().default(''),
  grpc_port: port(9000),
  shutdown_timeout: duration('5s'),
  /** Flipt's gRPC keepalive: a connection idle this long, or open this long (then given the grace to finish its calls), is closed; 0 never. */
  grpc_conn_max_idle_time: duration('0'),
  grpc_conn_max_age: duration('0'),
  grpc_conn_max_age_grace: duration('0'),
  /** Pennon's own: the largest gRPC message received (bytes; gRPC's default 4 MiB) and sent (the default: 2 GiB, gRPC's own ceiling). */
  grpc_max_recv_msg_size: z.number().int().min(1024).max(2147483647).default(4 * 1024 * 1024),
  grpc_max_send_msg_size: z.number().int().min(1024).max(2147483647).default(2147483647),
  /** Largest request body the API accepts (bytes); larger ones get 413 with Flipt's error body. */
  max_body_bytes: z.number().int().min(1024).default(1024 * 1024),
  /** Largest document stream the bulk import route accepts (bytes): a whole export, so its own limit. */
  max_import_bytes: z.number().int().min(1024).default(32 * 1024 * 1024),
  /**
   * Pennon's own: processes `serve` runs, sharing the listening ports (node:cluster); 0 = one per
   * core (the default), 1 = a single process.
   */
  workers: z.number().int().min(0).max(256).default(0),
});

const db = z.strictObject({
  url: secret(z.string().default('')),
  protocol: z.enum(['', 'file', 'sqlite', 'sqlite3', 'postgres', 'postgresql', 'mysql', 'cockroach', 'cockroachdb']).default(''),
  host: z.string().default(''),
  port: z.number().int().min(0).max(65535).default(0),
  name: z.string().default(''),
  user: z.string().default(''),
  password: secret(z.string().default('')),
  max_idle_conn: z.number().int().min(0).default(2),
  max_open_conn: z.number().int().min(0).default(0),
  conn_max_lifetime: duration('0'),
  prepared_statements_enabled: z.boolean().default(true),
  /**
   * Pennon's own (Flipt has none): how long one statement may run before the database cancels it
   * and the client, 0.5 s later, gives up on its connection (503, never applied later); 0 = no limit.
   */
  statement_timeout: duration('5s'),
  /** Pennon's own: how long opening a database connection (or waiting for a busy pool's) may take; 0 = no limit. */
  connect_timeout: duration('5s'),
  /** Pennon's own: how long `serve` waits for an unreachable database at start before it exits 1; 0 = for ever. */
  startup_timeout: duration('0'),
});

const tokenMethod = z.strictObject({
  enabled: z.boolean().default(false),
  bootstrap: z
    .strictObject({
      token: secret(z.string().default('')),
      /** How long the bootstrap token lives; 0 = no expiry. */
      expiration: duration('0'),
      metadata: z.record(z.string(), z.string()).default({}),
    })
    .prefault({}),
  cleanup: z
    .strictObject({
      interval: duration('1h'),
      grace_period: duration('30m'),
    })
    .prefault({}),
});

const authentication = z.strictObject({
  required: z.boolean().default(false),
  exclude: z
    .strictObject({
      management: z.boolean().default(false),
      evaluation: z.boolean().default(false),
      ofrep: z.boolean().default(false),
      /** Deprecated in Flipt and without effect: /meta always needs a token when one is required. */
      metadata: z.boolean().default(false),
    })
    .prefault({}),
  methods: z.strictObject({ token: tokenMethod.prefault({}), ...signInMethodsShape }).prefault({}),
  session: sessionSchema,
  /** Pennon's own: failed authentication per client address (429 with Retry-After past it). */
  rate_limit: authRateLimitSchema,
});

const evaluation = z.strictObject({
  /** How often an instance checks the database for writes made elsewhere (the bound on staleness). */
  refresh_interval: duration('1s'),
  /**
   * Pennon's own: the namespaces whose snapshots are loaded before health says SERVING (so the
   * first evaluation costs what the thousandth does); empty = every namespace.
   */
  warm_namespaces: z.array(z.string()).default([]),
});

/**
 * A Git repository flags are read from (Flipt v2's `storage.<key>`, `internal/config/storage.go`).
 * Cross-references (credentials) and `poll_interval >= 1s` are checked at load
 * (internal/config/git.ts), where the message can name the key.
 */
const gitStorage = z.strictObject(
  {
    /** http(s) only: isomorphic-git has no ssh, git:// or file:// transport (docs/DECISIONS.md). */
    remote: z
      .string()
      .default('')
      .refine((url) => url === '' || /^https?:\/\/[^/]/i.test(url), 'must be an http:// or https:// URL'),
    branch: z.string().min(1).default('main'),
    poll_interval: duration('30s'),
    /** A key of `credentials`. */
    credentials: z.string().default(''),
    ca_cert_path: z.string().default(''),
    ca_cert_bytes: z.string().default(''),
    insecure_skip_tls: z.boolean().default(false),
    backend: z
      .strictObject({
        /** memory: cloned again at every start; local: a Git directory kept between starts. */
        type: z.enum(['memory', 'local']).default('memory'),
        path: z.string().default(''),
      })
      .prefault({}),
  },
  // Any key of `storage` besides type/read_only is a named Git storage: say so when it is not one.
  { error: (issue) => (issue.code === 'invalid_type' ? 'expected a Git storage (remote, branch, …) or one of type, read_only' : undefined) },
);

/**
 * Flipt v1's `{type: database, read_only}`, plus Flipt v2's named Git storages as the other keys
 * (`storage.flags.remote`), so both configurations read unchanged. `type` and `read_only`
 * therefore cannot name a Git storage.
 */
const storage = z
  .object({
    type: z.enum(['database']).default('database'),
    /** The evaluation tier of a read/write split: reads and evaluations only; writes get Flipt's read-only error. */
    read_only: z.boolean().default(false),
  })
  .catchall(gitStorage);

/** Git transport credentials (`credentials.<key>`); Flipt's `type` may be given or inferred. */
const credential = z.strictObject({
  type: z.enum(['basic', 'access_token']).optional(),
  basic: z
    .strictObject({
      username: z.string().default(''),
      password: secret(z.string().default('')),
    })
    .optional(),
  /** Sent as HTTP basic `x-token-auth:<token>`, as Flipt does (any username works on the big hosts). */
  access_token: secret(z.string().default('')),
});

const SCM_TYPES = ['github', 'gitlab', 'gitea', 'bitbucket', 'azure'] as const;

/** Flipt v2's `environments.<key>` (`internal/config/environments.go`); `name` defaults to the key at load. */
const environment = z.strictObject({
  name: z.string().default(''),
  default: z.boolean().default(false),
  /** A key of `storage`. */
  storage: z.string().default('default'),
  /** The environment's root inside the repository ('' = the repository's root). */
  directory: z.string().default(''),
  scm: z
    .strictObject({
      type: z.enum(SCM_TYPES).default('github'),
      credentials: z.string().default(''),
      api_url: z.string().default(''),
      webhook: z.strictObject({ secret: secret(z.string().default('')) }).optional(),
    })
    .optional(),
});

const redis = z.strictObject({
  /** `redis://[user:password@]host:port/db` or `rediss://…`; when set it wins over host/port/…. */
  url: secret(z.string().default('')),
  host: z.string().default('localhost'),
  port: port(6379),
  username: secret(z.string().default('')),
  password: secret(z.string().default('')),
  db: z.number().int().min(0).default(0),
  prefix: z.string().default('pennon'),
  mode: z.enum(['single']).default('single'),
  require_tls: z.boolean().default(false),
  ca_cert_path: z.string().default(''),
  ca_cert_bytes: z.string().default(''),
  insecure_skip_tls: z.boolean().default(false),
  /** Connections; ioredis multiplexes one connection, so only 0 or 1 have a meaning here. */
  pool_size: z.number().int().min(0).default(0),
  min_idle_conn: z.number().int().min(0).default(0),
  conn_max_idle_time: duration('0'),
  /** Timeout of one command and of connecting; 0 = the built-in 500ms (a request never waits longer for Redis). */
  net_timeout: duration('0'),
});

const cache = z.strictObject({
  enabled: z.boolean().default(false),
  backend: z.enum(['memory', 'redis']).default('memory'),
  ttl: duration('60s'),
  memory: z.strictObject({ eviction_interval: duration('5m') }).prefault({}),
  redis: redis.prefault({}),
});

const metrics = z.strictObject({
  enabled: z.boolean().default(true),
  exporter: z.enum(['prometheus']).default('prometheus'),
  /** Prefix of every metric name (`service_…`); `flipt` keeps existing Flipt dashboards working. */
  namespace: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a Prometheus name (letters, digits, _)').default('service'),
  /** Namespace/flag pairs with series of their own; later flags count as `__other__` in their namespace. */
  max_flag_series: z.number().int().min(1).default(4_000),
  /** Evaluation latency histograms per flag (Flipt's shape) rather than per namespace. */
  per_flag_latency: z.boolean().default(false),
  /** Namespaces with series of their own; later namespaces count as namespace and flag `__other__`. */
  max_namespace_series: z.number().int().min(1).default(1_000),
});

const PROPAGATORS = ['tracecontext', 'baggage', 'none'] as const;

const tracing = z.strictObject({
  enabled: z.boolean().default(false),
  exporter: z.enum(['otlp']).default('otlp'),
  sampling_ratio: z.number().min(0).max(1).default(1),
  propagators: z.array(z.enum(PROPAGATORS)).default(['tracecontext', 'baggage']),
  otlp: z
    .strictObject({
      /** `http(s)://host:port[/v1/traces]` for OTLP/HTTP, `grpc://host:port` or bare `host:port` for OTLP/gRPC. */
      endpoint: z.string().default('localhost:4317'),
      headers: secret(z.record(z.string(), z.string()).default({})),
    })
    .prefault({}),
});

const cors = z.strictObject({
  enabled: z.boolean().default(false),
  allowed_origins: z.array(z.string()).default(['*']),
  allowed_headers: z
    .array(z.string())
    .default([
      'Accept',
      'Authorization',
      'Content-Type',
      'X-CSRF-Token',
      'X-Fern-Language',
      'X-Fern-SDK-Name',
      'X-Fern-SDK-Version',
      'X-Flipt-Namespace',
      'X-Flipt-Accept-Server-Version',
    ]),
});

/** The commercial licence (Flipt v2's `license`): the signed text itself, or a file holding it. */
const license = z.strictObject({
  key: secret(z.string().default('')),
  file: z.string().default(''),
  /** Flipt's machine binding; accepted so Flipt configurations load, and ignored. */
  machine_id: z.string().default(''),
});

/**
 * Pennon's own: live updates — OFREP's event streams (SSE), flagd's EventStream, Flipt v2's
 * snapshot stream and the dashboard's — all counted against one limit per instance.
 */
const streams = z.strictObject({
  /** Streams one instance holds (every kind together); beyond it a new one gets 503 / UNAVAILABLE. */
  max: z.number().int().min(0).default(20000),
  /** How often an idle stream carries a heartbeat, so proxies keep it open; 0 disables them. */
  heartbeat_interval: duration('15s'),
  /** Bytes queued for one stream before its client counts as stalled and is dropped (it reconnects). */
  max_buffered_bytes: z.number().int().min(1024).default(256 * 1024),
  /** The `inactivityDelaySec` OFREP's bulk answer advertises: how long a hidden page keeps its stream. */
  inactivity_delay: duration('120s'),
});

/** The dashboard (web/), served at `/` by the HTTP server; off for an API-only instance. */
const ui = z.strictObject({
  enabled: z.boolean().default(true),
});

export const configSchema = z.strictObject({
  version: z.string().optional(),
  log: log.prefault({}),
  server: server.prefault({}),
  db: db.prefault({}),
  evaluation: evaluation.prefault({}),
  authentication: authentication.prefault({}),
  authorization: authorizationSchema,
  storage: storage.prefault({}),
  credentials: z.record(z.string(), credential).default({}),
  /** Flipt v2's secret providers: only `file` (`${secret:file:KEY}` reads `<base_path>/KEY`). */
  secrets: z
    .strictObject({
      providers: z
        .strictObject({
          file: z.strictObject({ enabled: z.boolean().default(true), base_path: z.string().default('/etc/flipt/secrets') }).prefault({}),
        })
        .prefault({}),
    })
    .prefault({}),
  environments: z.record(z.string(), environment).default({}),
  cache: cache.prefault({}),
  metrics: metrics.prefault({}),
  tracing: tracing.prefault({}),
  cors: cors.prefault({}),
  license: license.prefault({}),
  ui: ui.prefault({}),
  streams: streams.prefault({}),
  audit: auditSchema().prefault({}),
});

export type Config = z.output<typeof configSchema>;
export type LogConfig = Config['log'];
export type ServerConfig = Config['server'];
export type DbConfig = Config['db'];
export type AuthenticationConfig = Config['authentication'];
export type StorageConfig = Config['storage'];
export type GitStorageConfig = z.output<typeof gitStorage>;
export type CredentialConfig = z.output<typeof credential>;
export type EnvironmentConfig = z.output<typeof environment>;
export type CacheConfig = Config['cache'];
export type MetricsConfig = Config['metrics'];
export type TracingConfig = Config['tracing'];
export type CorsConfig = Config['cors'];
export type UiConfig = Config['ui'];
export type StreamsConfig = Config['streams'];
