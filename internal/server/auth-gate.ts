import type { FastifyInstance } from 'fastify';
import type { AuthenticationConfig } from '../config';
import { DEFAULT_NAMESPACE, isPennonError, unauthenticated, type Authentication } from '../core';
import { TOKEN_METADATA, type Authenticator } from '../auth';
import { namespaceOf, type Surface } from '../wire/routes';
import type { SessionGuard } from './session';

/**
 * Who may call what. Every route's entry in the wire table (internal/wire/routes.ts, in its
 * Fastify `config.route`) gives its surface and how to read the namespace it acts on; the gate
 * checks the bearer token, the `authentication.exclude.*` settings, and Flipt's rules for
 * namespace-scoped tokens: allowed on the management API, /evaluate/v1 and the client
 * snapshot, for their own namespace only; refused on /auth/v1, /meta and OFREP.
 */

const SCOPED_ALLOWED = new Set<Surface>(['management', 'evaluation']);

export class AuthGate {
  constructor(
    private readonly config: AuthenticationConfig,
    private readonly authenticator: Pick<Authenticator, 'authenticate'>,
  ) {}

  /** Whether requests to this surface need a token. */
  guards(surface: Surface): boolean {
    if (!this.config.required || surface === 'public') return false;
    const { exclude } = this.config;
    return !((surface === 'management' && exclude.management) || (surface === 'evaluation' && exclude.evaluation) || (surface === 'ofrep' && exclude.ofrep));
  }

  /**
   * The caller's authentication: a client token (`Bearer`) or a JWT (`JWT`). `address`, the
   * client's, is what failed attempts are counted by (auth/failures.ts): past the limit it is
   * refused (429) before its token is looked at.
   */
  async check(header: string | undefined, surface: Surface, address?: string): Promise<Authentication> {
    const auth = await this.authenticator.authenticate(header, address);
    if (scopeOf(auth) !== null && !SCOPED_ALLOWED.has(surface)) throw unauthenticated();
    return auth;
  }

  /** A namespace-scoped token may act on its own namespace only ("" means `default`). */
  checkNamespace(auth: Authentication, namespace: string | null): void {
    const scope = scopeOf(auth);
    if (scope === null) return;
    if (namespace === null || (namespace === '' ? DEFAULT_NAMESPACE : namespace) !== scope) throw unauthenticated();
  }
}

function scopeOf(auth: Authentication): string | null {
  return auth.metadata[TOKEN_METADATA.namespace] ?? null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's authentication, when the route required one. */
    auth: Authentication | null;
    /**
     * What authenticated the request, as an Authorization header's value: the header itself, or
     * for a session cookie its `Bearer <token>` equivalent (a held stream checks it again).
     */
    credential: string | undefined;
  }
}

/**
 * Installs the gate on every route (only when authentication is required). With sign-in
 * methods on (`sessions`), a request without an Authorization header may be authenticated by
 * the session cookie instead — the same token lookup as a bearer token — and then passes the
 * session's origin and CSRF checks (session.ts); a cookie that no longer authenticates is
 * cleared, as Flipt clears it.
 */
export function installAuthGate(app: FastifyInstance, gate: AuthGate | null, sessions: SessionGuard | null = null): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('credential', undefined);
  if (!gate) return;
  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.config?.route;
    if (!route || !gate.guards(route.surface)) return;
    const header = request.headers.authorization;
    const cookie = header === undefined ? sessions?.tokenOf(request) : undefined;
    if (cookie === undefined || sessions === null) {
      request.auth = await gate.check(header, route.surface, request.ip);
      request.credential = header;
      return;
    }
    const credential = `Bearer ${cookie}`;
    try {
      request.auth = await gate.check(credential, route.surface, request.ip);
    } catch (err) {
      if (isPennonError(err) && err.kind === 'unauthenticated') sessions.cookies.clearAll(reply);
      throw err;
    }
    request.credential = credential;
    await sessions.admit(request, reply, request.auth);
  });
  app.addHook('preHandler', async (request) => {
    if (!request.auth) return;
    // Fail closed: a scoped token on a route that names no namespace is refused.
    const route = request.routeOptions.config?.route;
    gate.checkNamespace(request.auth, route ? namespaceOf(route.namespace, request) : null);
  });
}
