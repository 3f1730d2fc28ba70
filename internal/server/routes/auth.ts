import type { FastifyInstance } from 'fastify';
import { AUTH_METHODS, invalidField, unauthenticated } from '../../core';
import type { AuthService } from '../../auth';
import { Fields } from '../wire/decode';
import { authenticationJson, instantOf } from '../wire/auth';
import { EMPTY } from './route';

/**
 * `/auth/v1`: the authentication methods (public), API client tokens, and the caller's own
 * authentication. The token-creation route exists only when the token method is enabled.
 */
export function authRoutes(app: FastifyInstance, auth: AuthService, options: { tokenMethod: boolean }): void {
  const guarded = { surface: 'auth' as const };

  app.get('/auth/v1/method', async () => ({
    methods: [
      { method: 'METHOD_TOKEN', enabled: options.tokenMethod, sessionCompatible: false },
      { method: 'METHOD_GITHUB', enabled: false, sessionCompatible: true },
      { method: 'METHOD_OIDC', enabled: false, sessionCompatible: true },
      { method: 'METHOD_KUBERNETES', enabled: false, sessionCompatible: false },
      { method: 'METHOD_JWT', enabled: false, sessionCompatible: false },
    ],
  }));

  if (options.tokenMethod) {
    app.post('/auth/v1/method/token', { config: guarded }, async (request) => {
      const body = Fields.body(request.body);
      const metadata = body.object('metadata') ?? {};
      for (const [k, v] of Object.entries(metadata)) if (typeof v !== 'string') throw invalidField(`metadata.${k}`, 'must be a string');
      const created = await auth.createToken({
        name: body.str('name'),
        description: body.str('description'),
        expiresAt: instantOf(body.str('expiresAt'), 'expiresAt'),
        namespaceKey: body.str('namespaceKey'),
        metadata: metadata as Record<string, string>,
      });
      return { clientToken: created.clientToken, authentication: authenticationJson(created.authentication) };
    });
  }

  app.get('/auth/v1/tokens', { config: guarded }, async (request) => {
    const query = Fields.query(request.query);
    const page = await auth.list(query.enumOf('method', AUTH_METHODS), query.int32('limit'), query.str('pageToken'));
    return { authentications: page.items.map(authenticationJson), nextPageToken: page.nextPageToken };
  });

  app.get<{ Params: { id: string } }>('/auth/v1/tokens/:id', { config: guarded }, async (request) =>
    authenticationJson(await auth.get(request.params.id)),
  );

  app.delete<{ Params: { id: string } }>('/auth/v1/tokens/:id', { config: guarded }, async (request) => {
    await auth.delete(request.params.id);
    return EMPTY;
  });

  // Without required authentication there is no caller to describe: Flipt answers 401 too.
  app.get('/auth/v1/self', { config: guarded }, async (request) => {
    if (!request.auth) throw unauthenticated();
    return authenticationJson(request.auth);
  });

  app.put('/auth/v1/self/expire', { config: guarded }, async (request) => {
    if (!request.auth) throw unauthenticated();
    await auth.expire(request.auth.id, instantOf(Fields.query(request.query).str('expiresAt'), 'expiresAt'));
    return EMPTY;
  });
}
