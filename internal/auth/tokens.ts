import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Client tokens as Flipt makes them: 32 random bytes, URL-safe base64 with padding (44
 * characters). Only base64url(sha256(token)) is ever stored.
 */
export function generateToken(): string {
  return randomBytes(32).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Constant-time equality of two hashes (equal length, as SHA-256 digests are). */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Metadata keys of the token method, as Flipt names them. */
export const TOKEN_METADATA = {
  name: 'io.flipt.auth.token.name',
  description: 'io.flipt.auth.token.description',
  namespace: 'io.flipt.auth.token.namespace',
} as const;
