import { unauthenticated, type Authentication, type Clock } from '../core';
import type { AuthStore } from '../storage';
import { hashToken, sameHash } from './tokens';

/**
 * Verifies `Authorization: Bearer <token>`: the token is hashed, looked up by its hash and
 * compared in constant time. Lookups are cached for `ttlMs` (default 1 s) so that the
 * evaluation path does not query the database per request; expiry is checked on every
 * request, and a token deleted or expired through this instance is dropped from the cache at
 * once. A token deleted through another instance is refused here within `ttlMs`.
 */
interface CacheEntry {
  auth: Authentication | null;
  until: number;
}

const MAX_ENTRIES = 10_000;

export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly store: AuthStore,
    private readonly clock: Clock,
    private readonly ttlMs = 1000,
  ) {}

  /** The authentication a request's Authorization header carries, or an Unauthenticated error. */
  async authenticate(header: string | undefined): Promise<Authentication> {
    if (header === undefined || !header.startsWith('Bearer ')) throw unauthenticated();
    const token = header.slice(7);
    if (token === '') throw unauthenticated();
    const hash = hashToken(token);
    const now = Date.now();
    let entry = this.cache.get(hash);
    if (!entry || entry.until <= now) {
      const auth = await this.store.getAuthenticationByHash(hash);
      entry = { auth, until: now + this.ttlMs };
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(hash, entry);
    }
    const auth = entry.auth;
    if (!auth || !sameHash(auth.hashedToken, hash)) throw unauthenticated();
    if (auth.expiresAt !== null && auth.expiresAt <= this.clock.nowMicros()) throw unauthenticated();
    return auth;
  }

  /** Forgets a revoked authentication at once. */
  revoke(id: string): void {
    for (const [hash, entry] of this.cache) if (entry.auth?.id === id) this.cache.delete(hash);
  }
}
