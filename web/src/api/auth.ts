import type { AuthenticationJson } from '../../../internal/wire/types';
import { http, type RequestOptions } from './http';

/** An authentication as /auth/v1 returns it (a client token's, for this dashboard). */
export type Authentication = AuthenticationJson;

export const auth = {
  /** Who the token belongs to; a 401 when it is unknown or expired. */
  self: (options?: RequestOptions) => http.get<Authentication>('/auth/v1/self', undefined, options),
};
