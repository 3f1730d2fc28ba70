import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import fastifyCookie from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionConfig } from '../config';
import { PennonError, type Authentication } from '../core';

/**
 * The browser session's HTTP side: its cookies and its CSRF defence. OIDC and GitHub sign-in end
 * with the client token in `flipt_client_token` (HttpOnly, SameSite=Lax, Secure per
 * `session.secure`, Domain `session.domain` unless that is localhost or an IP address); the
 * sign-in's own secrets travel meanwhile in `flipt_client_state` (internal/auth/sign-in-state.ts).
 *
 * A request authenticated by the cookie rather than an Authorization header is one a browser
 * may have been tricked into sending, so (the gate calls `admit`):
 *   - its Origin, when it sends one, must be Pennon's own (the Host it was sent to, or
 *     `session.domain`) or one of `session.csrf.trusted_origins`;
 *   - a state-changing one (POST, PUT, PATCH, DELETE) must carry `X-CSRF-Token`, a token that
 *     @fastify/csrf-protection made for this browser (its secret in the `pennon_csrf` cookie)
 *     and this session (the authentication's id), keyed by `session.csrf.key` — or a random
 *     key per process when that is empty, which is why instances behind one load balancer (or
 *     `server.workers` > 1) need the key set;
 *   - a GET is answered with such a token in the `X-CSRF-Token` header (the dashboard reads it
 *     from `GET /auth/v1/self`).
 * A request with an Authorization header is not a browser's cookie at work: none of this applies.
 */

export const TOKEN_COOKIE = 'flipt_client_token';
export const STATE_COOKIE = 'flipt_client_state';
/** The CSRF secret of this browser (@fastify/csrf-protection's, under a name of Pennon's). */
const CSRF_SECRET_COOKIE = 'pennon_csrf';
export const CSRF_HEADER = 'x-csrf-token';
/** The state cookie goes only to the callbacks (and the authorize routes, which replace it). */
const STATE_PATH = '/auth/v1/method';
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The session's client token in a request's Cookie header, if any (for the fast lane, which has no Fastify). */
export function sessionTokenOf(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.cookie;
  if (header === undefined || !header.includes(TOKEN_COOKIE)) return undefined;
  return fastifyCookie.parse(header)[TOKEN_COOKIE] || undefined;
}

export class SessionCookies {
  private readonly domain: string | undefined;

  constructor(private readonly config: SessionConfig) {
    // A Domain attribute must name a registrable host: browsers drop cookies for `localhost` or an IP.
    const bare = config.domain.replace(/^\[|\]$/g, '');
    this.domain = bare === '' || bare === 'localhost' || isIP(bare) !== 0 ? undefined : config.domain;
  }

  private base(path: string) {
    return { domain: this.domain, path, secure: this.config.secure, httpOnly: true, sameSite: 'lax' as const };
  }

  /** The session's cookie, living as long as its authentication. */
  setToken(reply: FastifyReply, clientToken: string, expiresAtMicros: number | null): void {
    reply.setCookie(TOKEN_COOKIE, clientToken, { ...this.base('/'), ...(expiresAtMicros !== null && { expires: new Date(expiresAtMicros / 1000) }) });
  }

  /** A sign-in's secrets, for `session.state_lifetime`. */
  setState(reply: FastifyReply, value: string): void {
    reply.setCookie(STATE_COOKIE, value, { ...this.base(STATE_PATH), maxAge: Math.max(1, Math.floor(this.config.state_lifetime / 1000)) });
  }

  stateOf(request: FastifyRequest): string | undefined {
    return request.cookies[STATE_COOKIE];
  }

  clearState(reply: FastifyReply): void {
    reply.clearCookie(STATE_COOKIE, this.base(STATE_PATH));
  }

  /** Logout, or a session cookie that no longer authenticates: both cookies go (Flipt clears them at `/` too). */
  clearAll(reply: FastifyReply): void {
    reply.clearCookie(TOKEN_COOKIE, this.base('/'));
    this.clearState(reply);
    // Flipt sets its state cookie at `/` in some versions: clear that one as well.
    reply.clearCookie(STATE_COOKIE, { ...this.base('/'), path: '/' });
  }
}

/** What the gate asks of the session: the cookie's token, and whether a cookie request may go on. */
export class SessionGuard {
  constructor(
    readonly cookies: SessionCookies,
    private readonly app: FastifyInstance,
    private readonly config: SessionConfig,
  ) {}

  tokenOf(request: FastifyRequest): string | undefined {
    return request.cookies[TOKEN_COOKIE] || undefined;
  }

  /** Checks a request the session cookie authenticated (as `auth`): its origin, and its CSRF token when it changes state. */
  async admit(request: FastifyRequest, reply: FastifyReply, auth: Authentication): Promise<void> {
    const origin = request.headers.origin;
    if (origin !== undefined && !this.trusted(origin, request.headers.host)) {
      throw new PennonError('forbidden', `origin ${origin} may not use this session: it is neither Pennon's own nor in authentication.session.csrf.trusted_origins`);
    }
    if (!STATE_CHANGING.has(request.method)) {
      reply.header(CSRF_HEADER, reply.generateCsrf({ userInfo: auth.id }));
      return;
    }
    const given = request.headers[CSRF_HEADER];
    if (typeof given !== 'string' || given === '') {
      throw new PennonError('forbidden', 'missing CSRF token: a request authenticated by the session cookie that changes state must send the X-CSRF-Token header that GET /auth/v1/self answers with');
    }
    // The plugin's check answers through reply.send; its verdict is taken here instead.
    await new Promise<void>((resolve, reject) => {
      const verdict = { send: () => reject(new PennonError('forbidden', 'invalid CSRF token: send the X-CSRF-Token header that GET /auth/v1/self answered this session with')) } as unknown as FastifyReply;
      this.app.csrfProtection.call(this.app, request, verdict, () => resolve());
    });
  }

  private trusted(origin: string, host: string | undefined): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // `null` (a sandboxed frame, a redirect across sites) and anything unreadable
    }
    if (host !== undefined && url.host === host.toLowerCase()) return true;
    if (this.config.domain !== '' && url.hostname === this.config.domain.toLowerCase()) return true;
    return this.config.csrf.trusted_origins.some((entry) => {
      const trimmed = entry.trim().replace(/\/+$/, '').toLowerCase();
      // `https://app.example.com` names an origin; `app.example.com[:port]` a host on any scheme.
      return trimmed.includes('://') ? trimmed === url.origin : trimmed === url.host;
    });
  }
}

/**
 * Registers the cookie parser and the CSRF plugin on the app (before the gate's hook, which
 * reads cookies) and answers the session's cookies and guard.
 */
export async function installSessions(app: FastifyInstance, config: SessionConfig): Promise<SessionGuard> {
  const cookies = new SessionCookies(config);
  await app.register(fastifyCookie);
  await app.register(csrfProtection, {
    cookieKey: CSRF_SECRET_COOKIE,
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'strict', secure: config.secure },
    getToken: (request) => request.headers[CSRF_HEADER] as string | undefined,
    // Binds a token to the session it was handed to: another session's token is refused.
    getUserInfo: (request) => request.auth?.id ?? '',
    csrfOpts: { hmacKey: config.csrf.key !== '' ? config.csrf.key : randomBytes(32).toString('base64url') },
  });
  // Logout clears the cookies (as Flipt's middleware does), once the gate let the request through.
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config?.route?.name === 'ExpireAuthenticationSelf') cookies.clearAll(reply);
  });
  return new SessionGuard(cookies, app, config);
}
