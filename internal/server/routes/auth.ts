import type { FastifyInstance } from 'fastify';
import { AUTH_METHODS, invalidField, unauthenticated } from '../../core';
import { grantsToJson, type AuthService, type RoleResolver } from '../../auth';
import { GRANTS_METADATA } from '../../wire/permissions';
import { authenticationToJson, Fields, type AuthenticationListJson, type AuthMethodsJson, type CreatedTokenJson } from '../../wire';
import { auditOriginOf } from '../audit-origin';
import { operation } from '../route-table';
import { EMPTY } from './route';

/**
 * `/auth/v1`: the authentication methods (public), API client tokens, and the caller's own
 * authentication. The token-creation route exists only when the token method is enabled.
 */
export function authRoutes(app: FastifyInstance, auth: AuthService, options: { tokenMethod: boolean; roles: RoleResolver }): void {
  operation(app, 'ListAuthenticationMethods', async (): Promise<AuthMethodsJson> => ({
    methods: [
      { method: 'METHOD_TOKEN', enabled: options.tokenMethod, sessionCompatible: false },
      { method: 'METHOD_GITHUB', enabled: false, sessionCompatible: true },
      { method: 'METHOD_OIDC', enabled: false, sessionCompatible: true },
      { method: 'METHOD_KUBERNETES', enabled: false, sessionCompatible: false },
      { method: 'METHOD_JWT', enabled: false, sessionCompatible: false },
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
    await auth.as(auditOriginOf(request)).expire(request.auth.id, Fields.query(request.query).instant('expiresAt'));
    return EMPTY;
  });
}
