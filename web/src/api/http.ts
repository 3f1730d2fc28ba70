import { CLIENT_HEADERS } from './client-header';
import { ApiError, errorFrom } from './errors';

/**
 * The one way the dashboard talks to the server: fetch over the public API (the same paths as
 * any Flipt client: /api/v1, /auth/v1, /evaluate/v1, /meta), same origin, JSON both ways.
 * A caller is signed in one of two ways:
 * - a pasted client token, kept in sessionStorage (it lasts for the browser tab's session and is
 *   never written anywhere that outlives it) and sent as `Authorization: Bearer`;
 * - a browser session (OIDC, GitHub): the server's HttpOnly cookie `flipt_client_token`, which
 *   the page cannot read; fetch sends it (same origin). Changes made with the cookie carry the
 *   server's CSRF token (below).
 * A 401 clears the pasted token and calls the handler the session installed (the login screen).
 */

const TOKEN_KEY = 'pennon.token';

export function getToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  try {
    if (token === null) sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    // Storage refused (private mode quotas): the token lasts until the page is reloaded.
  }
}

let onUnauthorized: (error: ApiError) => void = () => undefined;

/** The session registers what a 401 does (forget the token, show the login screen). */
export function handleUnauthorized(handler: (error: ApiError) => void): void {
  onUnauthorized = handler;
}

/** A 401 from any request (the live stream's too): the token is forgotten and the session asks for another. */
export function unauthorized(error: ApiError): void {
  setToken(null);
  onUnauthorized(error);
}

/** The Authorization header for `token` (the stored one by default), or none. */
export function authorization(token: string | null = getToken()): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/**
 * The CSRF token for cookie sessions: the server hands it out in the `X-CSRF-Token` header of its
 * GET answers (`/auth/v1/self` at least); the latest one seen is sent back with every change
 * (POST, PUT, PATCH, DELETE) made without a pasted token, as Flipt's UI does. Bearer requests
 * need none (a page elsewhere cannot make the browser add an Authorization header).
 */
export const CSRF_HEADER = 'x-csrf-token';
let csrfToken: string | null = null;

/** Keeps the CSRF token a response carries, if any. */
export function noteCsrfToken(res: Response): void {
  const value = res.headers.get(CSRF_HEADER);
  if (value) csrfToken = value;
}

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What authenticates a request: the pasted token's Authorization, or for a change by cookie the CSRF token. */
function credentialsFor(method: string, token: string | null): Record<string, string> {
  if (token) return authorization(token);
  return CHANGES.has(method) && csrfToken !== null ? { [CSRF_HEADER]: csrfToken } : {};
}

/** A 403 saying the CSRF token was missing or wrong (gorilla/csrf's and @fastify/csrf-protection's words alike). */
function isCsrfRefusal(status: number, message: string): boolean {
  return status === 403 && /csrf/i.test(message);
}

/** Reads `/auth/v1/self` once for a fresh CSRF token; whatever goes wrong, the caller's error stands. */
async function renewCsrfToken(): Promise<void> {
  try {
    noteCsrfToken(await fetch(relative('/auth/v1/self'), { headers: { accept: 'application/json', ...CLIENT_HEADERS }, credentials: 'same-origin', cache: 'no-store' }));
  } catch {
    // Unreachable now: the next GET brings one.
  }
}

export const CSRF_RETRY_MESSAGE = 'Your session’s security token had expired and has been renewed. Nothing was changed: try again.';

/** A path relative to the page (no leading slash), as Flipt's UI calls the API: works behind a path prefix. */
export function relative(url: string): string {
  return url.replace(/^\//, '');
}

export interface RequestOptions {
  /** A token to use instead of the stored one (the login screen checks one before keeping it). */
  token?: string | null;
  /** When false, a 401 is returned to the caller without the global handler (login checks). */
  redirectOn401?: boolean;
  signal?: AbortSignal;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

/** `/api/v1/namespaces/${ns}` with every segment encoded: keys may hold commas. */
export function path(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '');
}

function withQuery(url: string, query?: Query): string {
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs === '' ? url : `${url}?${qs}`;
}

export async function request<T>(method: string, url: string, body?: unknown, options: RequestOptions = {}, query?: Query): Promise<T> {
  const token = options.token === undefined ? getToken() : options.token;
  const headers: Record<string, string> = { accept: 'application/json', ...CLIENT_HEADERS, ...credentialsFor(method, token) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(withQuery(relative(url), query), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal,
      // The session cookie goes along (fetch's default, said here because sign-in depends on it).
      credentials: 'same-origin',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 0, 'The server could not be reached. Is Pennon running?', []);
  }
  noteCsrfToken(res);
  const text = await res.text();
  if (!res.ok) {
    const error = errorFrom(res.status, text);
    if (res.status === 401 && options.redirectOn401 !== false) unauthorized(error);
    if (!token && isCsrfRefusal(res.status, error.serverMessage)) {
      // Fetch a fresh token once; the change is not sent again by itself (the user decides).
      await renewCsrfToken();
      throw new ApiError(res.status, error.code, CSRF_RETRY_MESSAGE, []);
    }
    throw error;
  }
  return (text === '' ? {} : JSON.parse(text)) as T;
}

export const http = {
  get: <T>(url: string, query?: Query, options?: RequestOptions) => request<T>('GET', url, undefined, options, query),
  post: <T>(url: string, body: unknown, options?: RequestOptions) => request<T>('POST', url, body, options),
  put: <T>(url: string, body: unknown, options?: RequestOptions) => request<T>('PUT', url, body, options),
  delete: <T = Record<string, never>>(url: string, options?: RequestOptions) => request<T>('DELETE', url, undefined, options),
};
