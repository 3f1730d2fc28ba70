import { http, type RequestOptions } from './http';

/** An authentication as /auth/v1 returns it (a client token's, for this dashboard). */
export interface Authentication {
  id: string;
  method: string;
  expiresAt?: string | null;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, string>;
}

export const auth = {
  /** Who the token belongs to; a 401 when it is unknown or expired. */
  self: (options?: RequestOptions) => http.get<Authentication>('/auth/v1/self', undefined, options),
};
