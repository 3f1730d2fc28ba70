import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig, type Config } from '../../internal/config';
import type { Clock } from '../../internal/core';
import { compose, startService, type RunningService } from '../../internal/service';
import type { DrainReport } from '../../internal/server';
import { silentLogger } from '../../internal/telemetry';
import { REDIS_URL, backend, type BackendName } from './backends';

/**
 * A real Pennon server on 127.0.0.1 (random port) over a fresh database of the back end that
 * PENNON_TEST_BACKEND names (sqlite by default; postgres or mysql through backends.ts, dropped
 * on stop). PENNON_TEST_CACHE=redis turns on the Redis cache (PENNON_TEST_REDIS_URL) under a
 * prefix of its own. A caller's PENNON_DB_URL wins: a second server on the first one's database.
 * Built as `pennon serve` builds it: compose() the parts, startService() serves them.
 */
export interface TestServer {
  url: string;
  config: Config;
  service: RunningService;
  /** A temporary directory of the server's own (holding the database on SQLite). */
  dir: string;
  /** The database the server uses. */
  dbUrl: string;
  /** The back end that database is on. */
  backend: BackendName;
  api: ApiClient;
  /** Stops the service (its drain's report: requests cut at shutdown_timeout) and removes its files. */
  stop(): Promise<DrainReport>;
}

export interface ServerOptions {
  /** The time the service reads (default: the system clock), e.g. a ManualClock (test/support/clock.ts). */
  clock?: Clock;
  /** Where the service logs (default: nowhere). */
  logger?: Logger;
  /** Aborting it while the server waits for its database ends the start (it rejects with StartCancelled). */
  signal?: AbortSignal;
  /** As a worker starting while others serve: the ports open only once ready. */
  listenWhenReady?: boolean;
  /** A configuration file read under `env` (for what variables cannot say: lists of objects, such as `authorization.roles`). */
  configPath?: string;
}

/** The back end the API suites run on: PENNON_TEST_BACKEND (a vitest project sets it). */
export function testBackend(): BackendName {
  const name = process.env.PENNON_TEST_BACKEND ?? 'sqlite';
  if (!['sqlite', 'postgres', 'mysql', 'cockroach-on-postgres'].includes(name)) throw new Error(`PENNON_TEST_BACKEND="${name}" names no back end`);
  return name as BackendName;
}

/** The cache settings PENNON_TEST_CACHE asks for, as configuration variables. */
function cacheEnv(dbUrl: string): Record<string, string> {
  const cache = process.env.PENNON_TEST_CACHE ?? '';
  if (cache === '') return {};
  if (cache !== 'redis') throw new Error(`PENNON_TEST_CACHE="${cache}" names no cache (redis)`);
  if (REDIS_URL === '') throw new Error('PENNON_TEST_CACHE=redis needs PENNON_TEST_REDIS_URL');
  return {
    PENNON_CACHE_ENABLED: 'true',
    PENNON_CACHE_BACKEND: 'redis',
    PENNON_CACHE_REDIS_URL: REDIS_URL,
    // One prefix per database: servers on the same database share their cache and invalidations
    // (as a deployment's instances do); servers on other test databases never see them.
    PENNON_CACHE_REDIS_PREFIX: `pennon-test-${createHash('sha256').update(dbUrl).digest('hex').slice(0, 16)}`,
  };
}

/** Starts a server configured by `env` (PENNON_* variables over the test defaults); the caller stops it. */
export async function startServer(env: Record<string, string> = {}, options: ServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-test-'));
  const name = testBackend();
  let dbUrl = env.PENNON_DB_URL;
  let dropDatabase: (() => Promise<void>) | undefined;
  if (dbUrl === undefined) {
    if (name === 'sqlite') dbUrl = `file:${join(dir, 'pennon.db')}`;
    else ({ url: dbUrl, cleanup: dropDatabase } = await backend(name).create());
  }
  const cleanup = async () => {
    await dropDatabase?.();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const { config } = loadConfig({
      path: options.configPath,
      env: {
        PENNON_SERVER_HOST: '127.0.0.1',
        PENNON_SERVER_HTTP_PORT: '0',
        PENNON_SERVER_GRPC_PORT: '0',
        PENNON_LOG_LEVEL: 'silent',
        ...cacheEnv(dbUrl),
        ...env,
        PENNON_DB_URL: dbUrl,
      },
    });
    const services = await compose(config, { logger: options.logger ?? silentLogger(), clock: options.clock });
    const service = await startService(services, { signal: options.signal, listenWhenReady: options.listenWhenReady });
    return {
      url: service.url,
      config,
      service,
      dir,
      dbUrl,
      backend: name,
      api: new ApiClient(service.url),
      async stop() {
        const report = await service.stop();
        await cleanup();
        return report;
      },
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * One server for the enclosing file or `describe`: started before its tests (`beforeAll`),
 * stopped after them (`afterAll`). `env` may be a function, read when the server starts (a
 * remote started by an earlier hook). The handle reads the running server, so read its fields
 * inside tests and hooks; `api` alone may be taken at once (it finds the server when it sends).
 */
export function useServer(env: Record<string, string> | (() => Record<string, string>) = {}, options: ServerOptions = {}): TestServer {
  let running: TestServer | undefined;
  beforeAll(async () => {
    running = await startServer(typeof env === 'function' ? env() : env, options);
  });
  afterAll(async () => {
    await running?.stop();
    running = undefined;
  });
  const current = (field: PropertyKey): TestServer => {
    if (!running) throw new Error(`the test server is not running: read server.${String(field)} inside a test or hook`);
    return running;
  };
  const api = new ApiClient(() => current('api').url);
  return new Proxy({} as TestServer, { get: (_target, field) => (field === 'api' ? api : Reflect.get(current(field), field)) });
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** Plain fetch against the server: what a client sees, nothing mocked (an event stream: its head only). */
export class ApiClient {
  /** `base`: the server's URL, or how to find it when a request is sent (useServer's handle). */
  constructor(
    private readonly base: string | (() => string),
    private readonly headers: Record<string, string> = {},
  ) {}

  get baseUrl(): string {
    return typeof this.base === 'string' ? this.base : this.base();
  }

  withHeaders(headers: Record<string, string>): ApiClient {
    return new ApiClient(this.base, { ...this.headers, ...headers });
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...this.headers, ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    // An event stream stays open: its head is the answer (test/support/namespace-events.ts reads one).
    const stream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
    if (stream) await res.body?.cancel();
    const text = stream ? '' : await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = any>(path: string, body?: unknown) {
    return this.request<T>('POST', path, body ?? {});
  }
  put<T = any>(path: string, body?: unknown) {
    return this.request<T>('PUT', path, body ?? {});
  }
  delete<T = any>(path: string) {
    return this.request<T>('DELETE', path);
  }
}

/** Fails with the response in the message when the status is not the expected one. */
export function expectStatus<T>(res: ApiResponse<T>, status: number): T {
  if (res.status !== status) {
    throw new Error(`expected HTTP ${status}, got ${res.status}: ${res.text}`);
  }
  return res.body;
}

/**
 * A server that wants a token on every API call (`useServer` with token authentication and the
 * bootstrap token `bootstrap`): `admin` carries the bootstrap token, `scoped` a token scoped to
 * `namespace` (named "<namespace> only"), created before the enclosing tests.
 */
export function useTokenServer(bootstrap: string, namespace: string): { server: TestServer; admin: ApiClient; scoped: ApiClient } {
  const server = useServer({
    PENNON_AUTHENTICATION_REQUIRED: 'true',
    PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
    PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: bootstrap,
  });
  const admin = server.api.withHeaders({ authorization: `Bearer ${bootstrap}` });
  // Read at each request: filled in once the token exists.
  const scopedHeaders: Record<string, string> = {};
  beforeAll(async () => {
    const token = expectStatus(await admin.post('/auth/v1/method/token', { name: `${namespace} only`, namespaceKey: namespace }), 200).clientToken;
    scopedHeaders.authorization = `Bearer ${token}`;
  });
  return { server, admin, scoped: new ApiClient(() => server.url, scopedHeaders) };
}
