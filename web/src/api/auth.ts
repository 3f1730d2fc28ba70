import type { AuthenticationJson, AuthMethodsJson } from '../../../internal/wire/types';
import { http, type RequestOptions } from './http';

/** An authentication as /auth/v1 returns it (a client token's, or a browser session's). */
export type Authentication = AuthenticationJson;

/**
 * `GET /auth/v1/method`, public: each method, whether it is enabled, and (Flipt's shape) where a
 * browser starts signing in with it — read defensively by session/identity.ts signInOptions.
 */
export type AuthMethod = AuthMethodsJson['methods'][number] & { metadata?: unknown };

export const auth = {
  /** Who the caller is (pasted token or session cookie); a 401 when unknown or expired. */
  self: (options?: RequestOptions) => http.get<Authentication>('/auth/v1/self', undefined, options),
  /** Ends the caller's authentication now (the session's cookies are cleared by the server). */
  expireSelf: (options?: RequestOptions) => http.put<Record<string, never>>('/auth/v1/self/expire', undefined, options),
  methods: async (): Promise<AuthMethod[]> => (await http.get<{ methods: AuthMethod[] }>('/auth/v1/method', undefined, { token: null, redirectOn401: false })).methods,
};
