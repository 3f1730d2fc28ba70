import type { FastifyInstance } from 'fastify';
import { AUTH_METHODS, invalid, invalidField, unauthenticated } from '../../core';
import { grantsToJson, type AuthService, type RoleResolver } from '../../auth';
import { GRANTS_METADATA } from '../../wire/permissions';
import { authenticationToJson, Fields, type AuthenticationListJson, type AuthMethodsJson, type CreatedTokenJson } from '../../wire';
import { auditOriginOf } from '../audit-origin';
import { operation } from '../route-table';
import { EMPTY } from './route';

export interface AuthRouteOptions {
  tokenMethod: boolean;
  /** The OIDC providers' names when the method is enabled, else null. */
  oidcProviders?: string[] | null;
  github?: boolean;
  kubernetesMethod?: boolean;
  jwtMethod?: boolean;
  /** Who holds which role: `/auth/v1/self` answers the caller's grants. */
  roles: RoleResolver;
}

/**
 * `/auth/v1`: the authentication methods (public), API client tokens, and the caller's own
 * authentication. The token-creation route exists only when the token method is enabled.
 * Logging out (`PUT /auth/v1/self/expire`) also clears the session's cookies (session.ts).
 */
export function authRoutes(app: FastifyInstance, auth: AuthService, options: AuthRouteOptions): void {
  // Flipt's metadata: where the dashboard sends a browser to sign in (and where the provider returns it).
  const providers = Object.fromEntries(
    (options.oidcProviders ?? []).map((name) => {
      const base = `/auth/v1/method/oidc/${encodeURIComponent(name)}`;
      return [name, { authorize_url: `${base}/authorize`, callback_url: `${base}/callback` }];
    }),
  );
  const githubUrls = { authorize_url: '/auth/v1/method/github/authorize', callback_url: '/auth/v1/method/github/callback' };
  operation(app, 'ListAuthenticationMethods', async (): Promise<AuthMethodsJson> => ({
    methods: [
      { method: 'METHOD_TOKEN', enabled: options.tokenMethod, sessionCompatible: false },
      { method: 'METHOD_GITHUB', enabled: options.github === true, sessionCompatible: true, metadata: githubUrls },
      { method: 'METHOD_OIDC', enabled: options.oidcProviders != null, sessionCompatible: true, metadata: { providers } },
      { method: 'METHOD_KUBERNETES', enabled: options.kubernetesMethod === true, sessionCompatible: false },
      { method: 'METHOD_JWT', enabled: options.jwtMethod === true, sessionCompatible: false },
    ],
  }));

  if (options.tokenMethod) {
    operation(app, 'CreateToken', async (request): Promise<CreatedTokenJson> => {
      const body = Fields.body(request.body);
      const metadata = body.object('metadata') ?? {};
      for (const [k, v] of Object.entries(metadata)) if (typeof v !== 'string') throw invalidField(`metadata.${k}`, 'must be a string');
      const created = await auth.as(auditOriginOf(request)).createToken({
        name: body.str('name'),
        description: body.str('description'),
        expiresAt: body.instant('expiresAt'),
        namespaceKey: body.str('namespaceKey'),
        metadata: metadata as Record<string, string>,
        // Pennon's: the token's role, at most its creator's (the gate's grants; none asked for: no ceiling).
        role: body.str('role'),
        creator: request.grants ?? null,
      });
      return { clientToken: created.clientToken, authentication: authenticationToJson(created.authentication) };
    });
  }

  operation(app, 'ListAuthentications', async (request): Promise<AuthenticationListJson> => {
    const query = Fields.query(request.query);
    const page = await auth.list(query.enumOf('method', AUTH_METHODS), query.int32('limit'), query.str('pageToken'));
    return { authentications: page.items.map(authenticationToJson), nextPageToken: page.nextPageToken };
  });

  operation(app, 'GetAuthentication', async (request) => authenticationToJson(await auth.get(request.params.id)));

  operation(app, 'DeleteAuthentication', async (request) => {
    await auth.as(auditOriginOf(request)).delete(request.params.id);
    return EMPTY;
  });

  // Without required authentication there is no caller to describe: Flipt answers 401 too.
  // Pennon adds the caller's roles, computed (never stored), as JSON in one metadata key.
  operation(app, 'GetAuthenticationSelf', async (request) => {
    if (!request.auth) throw unauthenticated();
    const json = authenticationToJson(request.auth);
    const grants = request.grants ?? options.roles.grantsOf(request.auth);
    return { ...json, metadata: { ...json.metadata, [GRANTS_METADATA]: JSON.stringify(grantsToJson(grants)) } };
  });

  operation(app, 'ExpireAuthenticationSelf', async (request) => {
    if (!request.auth) throw unauthenticated();
    // A JWT is kept nowhere: nothing here can end it before its `exp`.
    if (request.auth.method === 'METHOD_JWT') throw invalid('a JWT cannot be expired by Pennon: it ends at its exp claim (or when its issuer rotates the key away)');
    await auth.as(auditOriginOf(request)).expire(request.auth.id, Fields.query(request.query).instant('expiresAt'));
    return EMPTY;
  });
}
