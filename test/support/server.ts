import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../internal/config';
import { startService, type RunningService } from '../../internal/service';
import { silentLogger } from '../../internal/telemetry';

/** A real Pennon server on 127.0.0.1 (random port) over a temporary SQLite file. */
export interface TestServer {
  url: string;
  config: Config;
  service: RunningService;
  /** The temporary directory holding the database. */
  dir: string;
  api: ApiClient;
  stop(): Promise<void>;
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-test-'));
  const { config } = loadConfig({
    env: {
      PENNON_DB_URL: `file:${join(dir, 'pennon.db')}`,
      PENNON_SERVER_HOST: '127.0.0.1',
      PENNON_SERVER_HTTP_PORT: '0',
      PENNON_LOG_LEVEL: 'silent',
      ...env,
    },
  });
  const service = await startService(config, silentLogger());
  return {
    url: service.url,
    config,
    service,
    dir,
    api: new ApiClient(service.url),
    async stop() {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** Plain fetch against the server: what a client sees, nothing mocked. */
export class ApiClient {
  constructor(readonly baseUrl: string, private readonly headers: Record<string, string> = {}) {}

  withHeaders(headers: Record<string, string>): ApiClient {
    return new ApiClient(this.baseUrl, { ...this.headers, ...headers });
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...this.headers, ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
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
