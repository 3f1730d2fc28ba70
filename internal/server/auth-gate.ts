import type { FastifyInstance } from 'fastify';
import type { AuthenticationConfig, Role } from '../config';
import { DEFAULT_NAMESPACE, isPennonError, PennonError, unauthenticated, type AuditOrigin, type Authentication } from '../core';
import { holdsAny, roleOn, TOKEN_METADATA, type Authenticator, type Grants, type RoleResolver } from '../auth';
import { namespaceOf, type Surface } from '../wire/routes';
import { ANY_GRANT, LEAST_ROLE, namespacesOf, PERMISSIONS, roleAtLeast, type Permission, type RoleName } from '../wire/permissions';
import type { OperationName } from '../wire/routes';
import { auditOriginOf } from './audit-origin';
import type { DeniedAttempts } from './denied-attempts';
import type { SessionGuard } from './session';

/**
 * Who may call what. Every route's entry in the wire table (internal/wire/routes.ts, in its
 * Fastify `config.route`) gives its surface and how to read the namespace it acts on; the gate
 * checks the bearer token, the `authentication.exclude.*` settings, and Flipt's rules for
 * namespace-scoped tokens: allowed on the management API, /evaluate/v1 and the client
 * snapshot, for their own namespace only (401 elsewhere, as Flipt); refused on /auth/v1, /meta
 * and OFREP. Then the caller's role (auth/roles.ts) against the operation's permission
 * (wire/permissions.ts), on the namespaces the request names — or on every namespace when it
 * names none: without it, 403 PermissionDenied naming the role needed and where, and the
 * attempt counted, logged and audited (denied-attempts.ts). HTTP (the hooks below and the fast
 * lane) and gRPC (grpc/server.ts) go through the same methods.
 */

const SCOPED_ALLOWED = new Set<Surface>(['management', 'evaluation']);

// wire's role names (the dashboard reads them there) are config's: a difference fails the build.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const rolesAgree: Same<Role, RoleName> = true;
void rolesAgree;

/** Roles and what becomes of a refusal: built once by the composition root, shared by HTTP and gRPC. */
export interface Authorization {
  roles: RoleResolver;
  denials: DeniedAttempts | null;
}

/** One request's claim to an operation. */
export interface Attempt {
  auth: Authentication;
  /** The route table's operation, or a flagd method. */
  operation: string;
  permission: Permission;
  /** The namespaces it acts on (namespacesOf); null: none, so the role must hold on every namespace. */
  namespaces: string[] | null;
  /** Who is asking, as the audit trail records it: read only when the request is refused. */
  origin: () => AuditOrigin;
}

export function permissionDenied(needed: Role, namespace: string | null): PennonError {
  return new PennonError('forbidden', `permission denied: ${needed} role needed ${namespace === null ? 'on every namespace' : `on namespace "${namespace}"`}`);
}

export class AuthGate {
  constructor(
    private readonly config: AuthenticationConfig,
    private readonly authenticator: Pick<Authenticator, 'authenticate'>,
    private readonly authorization: Authorization,
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

  /** The caller's grants, if its role allows the attempt; PermissionDenied (recorded) if not. */
  authorize(attempt: Attempt): Grants {
    const grants = this.authorization.roles.grantsOf(attempt.auth);
    const needed = LEAST_ROLE[attempt.permission];
    if (needed === null) return grants;
    const { namespaces } = attempt;
    if (namespaces === null) {
      if (roleAtLeast(grants.global, needed)) return grants;
      // Open to a role held on any namespace (ListNamespaces, OFREP's configuration): every role reads.
      if (ANY_GRANT.has(attempt.operation as OperationName) && holdsAny(grants)) return grants;
      throw this.deny(attempt, needed, null, grants.global);
    }
    for (const ns of namespaces) {
      const held = roleOn(grants, ns);
      if (!roleAtLeast(held, needed)) throw this.deny(attempt, needed, ns, held);
    }
    return grants;
  }

  /** `authorize` for a route of the wire table, its namespaces read from the request as HTTP and gRPC hand it over. */
  authorizeRoute(auth: Authentication, operation: OperationName, namespaces: string[] | null, request: Parameters<typeof auditOriginOf>[0]): Grants {
    return this.authorize({ auth, operation, permission: PERMISSIONS[operation], namespaces, origin: () => auditOriginOf(request) });
  }

  private deny(attempt: Attempt, needed: Role, namespace: string | null, held: Role | null): PennonError {
    this.authorization.denials?.record({ origin: attempt.origin(), operation: attempt.operation, namespace, needed, held });
    return permissionDenied(needed, namespace);
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
    /** The caller's roles, once the gate has let it through (null: no authentication asked for: everything). */
    grants: Grants | null;
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
  app.decorateRequest('grants', null);
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
    // Fail closed: a scoped token on a route that names no namespace is refused; so is a route without its entry.
    const route = request.routeOptions.config?.route;
    gate.checkNamespace(request.auth, route ? namespaceOf(route.namespace, request) : null);
    if (!route) throw permissionDenied('admin', null);
    request.grants = gate.authorizeRoute(request.auth, route.name, namespacesOf(route.namespace, request), request);
  });
}
