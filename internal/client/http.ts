import { request } from 'undici';

/**
 * A small client for Pennon's (and Flipt's) HTTP API, for CLI commands given `--address`.
 * Errors become one readable line: the server's message, or why the server could not be reached.
 */
export class ApiError extends Error {
  /** The server's address, and why it could not be reached (ECONNREFUSED, …): for hints. */
  readonly address: string;
  readonly code: string;
  /** The `message` of the server's error body, as sent. */
  readonly serverMessage: string;

  constructor(
    message: string,
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    details: { address?: string; code?: string; serverMessage?: string } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.address = details.address ?? '';
    this.code = details.code ?? '';
    this.serverMessage = details.serverMessage ?? '';
  }
}

export interface ApiClientOptions {
  address: string;
  token?: string;
  timeoutMs?: number;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

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

  /** The server's address as used in requests and messages. */
  get address(): string {
    return this.base;
  }

  call<T>(method: Method, path: string, body?: unknown): Promise<T> {
    return this.send<T>(method, path, body === undefined ? undefined : { text: JSON.stringify(body), type: 'application/json' });
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('POST', path, body);
  }

  /** A body sent as it is (an import's document stream), waiting up to `timeoutMs` for the answer. */
  postText<T>(path: string, text: string, type: string, timeoutMs: number): Promise<T> {
    return this.send<T>('POST', path, { text, type }, timeoutMs);
  }

  /**
   * A GET whose body is handed to `onChunk` as it arrives (awaited: a slow sink paces the read).
   * `idleMs` bounds the wait for the answer and for each next chunk; a body cut short (the
   * server failed midway) is an error, never a short result.
   */
  async stream(path: string, onChunk: (chunk: Uint8Array) => void | Promise<void>, idleMs: number): Promise<void> {
    const headers: Record<string, string> = {};
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    let res;
    try {
      res = await request(this.base + path, { method: 'GET', headers, headersTimeout: idleMs, bodyTimeout: idleMs });
    } catch (err) {
      throw this.unreachable(err, (code) => `cannot reach ${this.base}: ${code}`);
    }
    if (res.statusCode !== 200) throw this.failure(res.statusCode, await res.body.text());
    try {
      for await (const chunk of res.body) await onChunk(chunk as Uint8Array);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw this.unreachable(err, (code) => `${this.base} stopped answering before the end (${code})`);
    }
  }

  /** No answer (or no whole one): the transport's code (ECONNREFUSED, …) in the message and for hints. */
  private unreachable(err: unknown, message: (code: string) => string): ApiError {
    const code = (err as { code?: string }).code ?? (err as Error).message;
    return new ApiError(message(code), 0, { address: this.base, code });
  }

  private failure(status: number, text: string): ApiError {
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const message = (parsed as { message?: string; errorDetails?: string } | undefined)?.message ?? (parsed as { errorDetails?: string } | undefined)?.errorDetails;
    return new ApiError(`${this.base} answered ${status}${message ? `: ${message}` : ''}`, status, { address: this.base, serverMessage: message ?? '' });
  }

  private async send<T>(method: Method, path: string, body: { text: string; type: string } | undefined, timeoutMs = this.options.timeoutMs ?? 10_000): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = body.type;
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    let res;
    try {
      res = await request(this.base + path, { method, headers, body: body?.text, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    } catch (err) {
      throw this.unreachable(err, (code) => `cannot reach ${this.base}: ${code}`);
    }
    const text = await res.body.text();
    if (res.statusCode !== 200) throw this.failure(res.statusCode, text);
    try {
      return (text === '' ? undefined : JSON.parse(text)) as T;
    } catch {
      return undefined as T;
    }
  }
}
