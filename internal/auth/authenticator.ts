import { isPennonError, unauthenticated, type Authentication, type Clock } from '../core';
import type { Cache } from '../cache/types';
import type { AuthStore } from '../storage';
import type { FailedAuthentications, FailureReason } from './failures';
import type { JwtVerifier } from './jwt';
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
 *
 * `Authorization: JWT <jwt>` is verified by the JWT method (jwt.ts) when it is configured.
 *
 * Failed attempts are counted per client address (failures.ts): past the limit the address is
 * refused before its token is looked at, and its lookups in flight are bounded.
 *
 * The negative cache: a hash looked up and found unknown is remembered for UNKNOWN_TTL_MS (at
 * most MAX_UNKNOWN hashes, the oldest forgotten first), so a client repeating a wrong token —
 * or an attacker repeating a guess — costs no query. It cannot refuse a real token for long:
 * a token generated here is 32 random bytes, which nobody could have presented before it
 * existed, and its creation here clears its hash at once anyway (`created`); a configured
 * bootstrap token presented before the bootstrap ran is the one token known in advance, and its
 * creation clears it too. A token created by another instance (or `pennon token create` on
 * another host) can only be in this cache if its exact value was presented here before it was
 * created — the bootstrap token again, or a Flipt token presented to Pennon before
 * `migrate --from-flipt` copied it —, and is then refused here for at most UNKNOWN_TTL_MS.
 */
interface CacheEntry {
  auth: Authentication | null;
  until: number;
}

const MAX_ENTRIES = 10_000;
export const UNKNOWN_TTL_MS = 60_000;
export const MAX_UNKNOWN = 10_000;

export interface AuthenticatorOptions {
  /** Failed attempts per address (authentication.rate_limit). */
  failures?: FailedAuthentications | null;
  /** The JWT method, when configured. */
  jwt?: Pick<JwtVerifier, 'verify'> | null;
  /** Told each time the store is queried for a token (the lookups metric). */
  onLookup?: () => void;
}

export interface SharedAuthCache {
  cache: Cache;
  ttlMs: number;
}

export class Authenticator {
  private readonly local = new Map<string, CacheEntry>();
  /** Hashes found unknown, until when (epoch ms): the negative cache. */
  private readonly unknown = new Map<string, number>();
  private readonly failures: FailedAuthentications | null;
  private readonly jwt: Pick<JwtVerifier, 'verify'> | null;
  private readonly onLookup: () => void;
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
    options: AuthenticatorOptions = {},
  ) {
    this.failures = options.failures ?? null;
    this.jwt = options.jwt ?? null;
    this.onLookup = options.onLookup ?? (() => undefined);
  }

  /**
   * The authentication a request's Authorization header carries (`Bearer <client token>` or
   * `JWT <jwt>`), or an Unauthenticated error. `address`, the client's, is what failures are
   * counted by; a request without an Authorization header presents nothing and counts as none.
   */
  async authenticate(header: string | undefined, address?: string): Promise<Authentication> {
    this.failures?.admit(address);
    if (header === undefined) throw unauthenticated();
    if (header.startsWith('Bearer ') && header.length > 7) return this.bearer(header.slice(7), address);
    if (header.startsWith('JWT ') && header.length > 4 && this.jwt) return this.verifyJwt(header.slice(4), address);
    throw this.refused(address, 'malformed');
  }

  /** A token created here: if it was ever presented while unknown, it is unknown no more. */
  created(hashedToken: string): void {
    this.unknown.delete(hashedToken);
  }

  private async bearer(token: string, address: string | undefined): Promise<Authentication> {
    const hash = hashToken(token);
    const now = this.clock.nowMicros() / 1000;
    const unknownUntil = this.unknown.get(hash);
    if (unknownUntil !== undefined) {
      if (unknownUntil > now) throw this.refused(address, 'unknown_token');
      this.unknown.delete(hash);
    }
    let entry = this.local.get(hash);
    let counted = false;
    if (!entry || entry.until <= now) ({ entry, counted } = await this.lookupOnce(hash, entry, now, address));
    const auth = entry.auth;
    if (!auth || !sameHash(auth.hashedToken, hash)) {
      if (counted) throw unauthenticated();
      throw this.refused(address, 'unknown_token');
    }
    if (auth.expiresAt !== null && auth.expiresAt <= this.clock.nowMicros()) throw this.refused(address, 'expired_token');
    return auth;
  }

  private async verifyJwt(token: string, address: string | undefined): Promise<Authentication> {
    try {
      return await this.jwt!.verify(token);
    } catch (err) {
      // The issuer's keys out of reach is an outage, not the caller's failure.
      if (isPennonError(err) && err.kind === 'unauthenticated') this.failures?.failed(address, 'invalid_jwt');
      throw err;
    }
  }

  private refused(address: string | undefined, reason: FailureReason) {
    this.failures?.failed(address, reason);
    return unauthenticated();
  }

  /** The authentication a stream ticket (an SSE URL's) was issued to for `ns`, if it still stands. */
  async authenticateTicket(ticket: string, ns: string): Promise<Authentication> {
    return checkStreamTicket(ticket, ns, this.clock.nowMicros(), (id) => this.store.getAuthentication(id));
  }

  /** A ticket for `auth`'s streams of `ns`: good for as long as the token. */
  ticketFor(auth: Authentication, ns: string): string {
    return issueStreamTicket(auth, ns);
  }

  /**
   * One store lookup per hash at a time. `counted`: the lookup found nothing and its failure is
   * already counted — before its turn is released, so a lookup waiting for a turn sees it and
   * the address's lookups never exceed its failures left (counted after, a waiter slipped in).
   */
  private async lookupOnce(hash: string, stale: CacheEntry | undefined, now: number, address: string | undefined): Promise<{ entry: CacheEntry; counted: boolean }> {
    let pending = this.inFlight.get(hash);
    if (pending) return counting(await pending);
    // A turn for this address: its lookups in flight stay within the failures it has left.
    const release = this.failures ? await this.failures.lookupSlot(address) : null;
    pending = this.inFlight.get(hash);
    if (pending) {
      release?.();
      return counting(await pending);
    }
    pending = this.lookup(hash, stale, now)
      .then((entry) => {
        if (entry.auth === null) this.failures?.failed(address, 'unknown_token');
        return entry;
      })
      .finally(() => {
        this.inFlight.delete(hash);
        release?.();
      });
    this.inFlight.set(hash, pending);
    return counting(await pending);
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
        this.onLookup();
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
    if (auth === null) {
      // Kept apart, so a flood of unknown tokens never pushes known ones out.
      if (this.unknown.size >= MAX_UNKNOWN) this.unknown.delete(this.unknown.keys().next().value!);
      this.unknown.set(hash, readAt + UNKNOWN_TTL_MS);
      this.local.delete(hash);
      return entry;
    }
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

/** A shared lookup's answer: an unknown token's failure was counted by the lookup that found it so. */
function counting(entry: CacheEntry): { entry: CacheEntry; counted: boolean } {
  return { entry, counted: entry.auth === null };
}
