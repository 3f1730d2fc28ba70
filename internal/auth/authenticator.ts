import { isPennonError, unauthenticated, type Authentication, type Clock } from '../core';
import type { Cache } from '../cache/types';
import type { AuthStore } from '../storage';
import { hashToken, sameHash } from './tokens';
import { checkStreamTicket, issueStreamTicket } from './stream-tickets';

/**
 * Verifies `Authorization: Bearer <token>`: the token is hashed, looked up by its hash and
 * compared in constant time. Lookups are kept locally for `ttlMs` (default 1 s, timed by the
 * given clock, as expiry is) so that the evaluation path does not query the database per
 * request; expiry is checked on every request, and a token deleted or expired through this
 * instance is dropped at once. A token deleted through another instance is refused here within
 * `ttlMs` — or, with a shared cache (`cache.enabled`), within the cache's TTL unless the
 * instances share invalidations (Redis). When the database is unavailable, the last lookup of
 * a token keeps answering, so that evaluations go on during an outage.
 */
interface CacheEntry {
  auth: Authentication | null;
  until: number;
}

const MAX_ENTRIES = 10_000;

export interface SharedAuthCache {
  cache: Cache;
  ttlMs: number;
}

export class Authenticator {
  private readonly local = new Map<string, CacheEntry>();
  /**
   * Lookups under way by token hash: requests (or a tick of stream re-checks) arriving together
   * after an entry ages out share one database read instead of each making its own.
   */
  private readonly inFlight = new Map<string, Promise<CacheEntry>>();
  private readonly revokeListeners: ((id: string) => void)[] = [];

  constructor(
    private readonly store: AuthStore,
    private readonly clock: Clock,
    private readonly ttlMs = 1000,
    private readonly shared: SharedAuthCache | null = null,
  ) {}

  /** The authentication a request's Authorization header carries, or an Unauthenticated error. */
  async authenticate(header: string | undefined): Promise<Authentication> {
    if (header === undefined || !header.startsWith('Bearer ')) throw unauthenticated();
    const token = header.slice(7);
    if (token === '') throw unauthenticated();
    const hash = hashToken(token);
    const now = this.clock.nowMicros() / 1000;
    let entry = this.local.get(hash);
    if (!entry || entry.until <= now) entry = await this.lookupOnce(hash, entry, now);
    const auth = entry.auth;
    if (!auth || !sameHash(auth.hashedToken, hash)) throw unauthenticated();
    if (auth.expiresAt !== null && auth.expiresAt <= this.clock.nowMicros()) throw unauthenticated();
    return auth;
  }

  /** The authentication a stream ticket (an SSE URL's) was issued to for `ns`, if it still stands. */
  async authenticateTicket(ticket: string, ns: string): Promise<Authentication> {
    return checkStreamTicket(ticket, ns, this.clock.nowMicros(), (id) => this.store.getAuthentication(id));
  }

  /** A ticket for `auth`'s streams of `ns`: good for as long as the token. */
  ticketFor(auth: Authentication, ns: string): string {
    return issueStreamTicket(auth, ns);
  }

  private lookupOnce(hash: string, stale: CacheEntry | undefined, now: number): Promise<CacheEntry> {
    let pending = this.inFlight.get(hash);
    if (!pending) {
      pending = this.lookup(hash, stale, now).finally(() => this.inFlight.delete(hash));
      this.inFlight.set(hash, pending);
    }
    return pending;
  }

  private async lookup(hash: string, stale: CacheEntry | undefined, now: number): Promise<CacheEntry> {
    const shared = await this.fromShared(hash, now);
    // An entry read from the shared cache lives only as long as the database read behind it
    // would have here: the 1 s bound counts from that read, not from this copy.
    let readAt = shared?.at ?? now;
    let auth: Authentication | null | undefined = shared?.auth;
    if (auth === undefined) {
      readAt = now;
      try {
        auth = await this.store.getAuthenticationByHash(hash);
      } catch (err) {
        // The database is down: a token seen before keeps working; an unknown one cannot be checked.
        if (stale && isPennonError(err) && err.kind === 'unavailable') return stale;
        throw err;
      }
      // Only known tokens are shared: a token created a moment ago elsewhere must not be refused.
      if (auth && this.shared) void this.shared.cache.set(`auth:${hash}`, JSON.stringify({ auth, at: now }), this.shared.ttlMs);
    }
    const entry = { auth, until: readAt + this.ttlMs };
    if (this.local.size >= MAX_ENTRIES) this.local.clear();
    this.local.set(hash, entry);
    return entry;
  }

  private async fromShared(hash: string, now: number): Promise<{ auth: Authentication; at: number } | undefined> {
    if (!this.shared) return undefined;
    const value = await this.shared.cache.get(`auth:${hash}`);
    if (value === undefined) return undefined;
    try {
      const entry = JSON.parse(value) as { auth: Authentication; at: number };
      return typeof entry.at === 'number' && entry.at + this.shared.ttlMs > now && entry.auth ? entry : undefined;
    } catch {
      return undefined;
    }
  }

  /** Forgets a revoked authentication at once, here and (given its hash) in the shared cache. */
  revoke(id: string, hashedToken: string | null = null): void {
    this.forget(id);
    if (hashedToken !== null && this.shared) void this.shared.cache.delete(`auth:${hashedToken}`);
    for (const listener of this.revokeListeners) listener(id);
  }

  /** A revocation made here, for other instances to hear of it (see cache/instances.ts). */
  onRevoke(listener: (id: string) => void): void {
    this.revokeListeners.push(listener);
  }

  /** A revocation heard from another instance: drop local entries only. */
  forget(id: string): void {
    for (const [hash, entry] of this.local) if (entry.auth?.id === id) this.local.delete(hash);
  }
}
