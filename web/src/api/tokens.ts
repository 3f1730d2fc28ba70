import type { AuthMethodsJson, CreatedTokenJson, TokenCreateJson } from '../../../internal/wire/types';
import type { Authentication } from './auth';
import { http, path } from './http';
import { allPages } from './pages';

/**
 * API client tokens (`/auth/v1`, Flipt's token method). The token itself exists only in the
 * answer to its creation: the server keeps a hash. The token method's fields live in the
 * authentication's metadata under these keys.
 */
export const TOKEN_METADATA = {
  name: 'io.flipt.auth.token.name',
  description: 'io.flipt.auth.token.description',
  namespace: 'io.flipt.auth.token.namespace',
} as const;

export type TokenInput = TokenCreateJson;
export type CreatedToken = CreatedTokenJson;

export const tokens = {
  /** Every token-method authentication, oldest first (the server pages by 100 at most). */
  list: () => allPages<Authentication, 'authentications'>('/auth/v1/tokens', 'authentications', { method: 'METHOD_TOKEN' }),
  /** 404 unless the server enables the token method (`authentication.methods.token.enabled`). */
  create: (input: TokenInput) => http.post<CreatedToken>('/auth/v1/method/token', input),
  delete: (id: string) => http.delete(path`/auth/v1/tokens/${id}`),
  /** Whether this server creates tokens (the public list of methods). */
  methodEnabled: async () => (await http.get<AuthMethodsJson>('/auth/v1/method')).methods.some((m) => m.method === 'METHOD_TOKEN' && m.enabled),
};
