import { request } from 'undici';

/**
 * A small client for Pennon's (and Flipt's) HTTP API, for CLI commands given `--address`.
 * Errors become one readable line: the server's message, or why the server could not be reached.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    /** The server's address, and why it could not be reached (ECONNREFUSED, …): for hints. */
    readonly address = '',
    readonly code = '',
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiClientOptions {
  address: string;
  token?: string;
  timeoutMs?: number;
}

export class HttpApi {
  private readonly base: string;

  constructor(private readonly options: ApiClientOptions) {
    let url: URL;
    try {
      url = new URL(options.address);
    } catch {
      throw new ApiError(`--address "${options.address}" is not a URL (example: http://localhost:8080)`, 0);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ApiError(`--address must be an http:// or https:// URL, not "${options.address}"`, 0);
    }
    this.base = url.toString().replace(/\/+$/, '');
  }

  async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    let res;
    try {
      res = await request(this.base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: this.options.timeoutMs ?? 10_000,
        bodyTimeout: this.options.timeoutMs ?? 10_000,
      });
    } catch (err) {
      const code = (err as { code?: string }).code ?? (err as Error).message;
      throw new ApiError(`cannot reach ${this.base}: ${code}`, 0, this.base, code);
    }
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (res.statusCode !== 200) {
      const message = (parsed as { message?: string; errorDetails?: string } | undefined)?.message ?? (parsed as { errorDetails?: string } | undefined)?.errorDetails;
      throw new ApiError(`${this.base} answered ${res.statusCode}${message ? `: ${message}` : ''}`, res.statusCode, this.base);
    }
    return parsed as T;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('POST', path, body);
  }
}
