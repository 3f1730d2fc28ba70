import type { FastifyInstance } from 'fastify';
import type { AuthenticationConfig } from '../config';
import { DEFAULT_NAMESPACE, unauthenticated, type Authentication } from '../core';
import { TOKEN_METADATA, type Authenticator } from '../auth';
import { namespaceOf, type Surface } from '../wire/routes';

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
  }
}

/** Installs the gate on every route (only when authentication is required). */
export function installAuthGate(app: FastifyInstance, gate: AuthGate | null): void {
  app.decorateRequest('auth', null);
  if (!gate) return;
  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.config?.route;
    if (!route || !gate.guards(route.surface)) return;
    request.auth = await gate.check(request.headers.authorization, route.surface, request.ip);
  });
  app.addHook('preHandler', async (request) => {
    if (!request.auth) return;
    // Fail closed: a scoped token on a route that names no namespace is refused.
    const route = request.routeOptions.config?.route;
    gate.checkNamespace(request.auth, route ? namespaceOf(route.namespace, request) : null);
  });
}
