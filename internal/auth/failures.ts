import { isIPv6 } from 'node:net';
import { rateLimited, type Clock } from '../core';
import type { AuthRateLimitConfig } from '../config';

/**
 * Failed authentication counted per client address (`authentication.rate_limit`): one component
 * for every door — Fastify's hook, the evaluation fast lane, gRPC, the Kubernetes exchange and
 * the sign-in routes —, since the fast lane and gRPC never pass through Fastify.
 *
 * A fixed window per address opens at its first failure. Once `max_failures` are counted in it,
 * the address is refused (429 / RESOURCE_EXHAUSTED, Retry-After: the window's remaining seconds)
 * before anything it presents is looked at — a valid token too, like any limiter: a token
 * that would pass after 20 guesses from the same place is no reason to lift the limit — until
 * the window ends. Other addresses are untouched.
 *
 * Database lookups are bounded too, not only answers: an address may have at most
 * `max_failures - failures` lookups in flight (`lookupSlot`); more wait for one to finish, so a
 * burst of 10,000 concurrent guesses reaches the store at most `max_failures` times per window.
 *
 * Memory is bounded: at most MAX_ADDRESSES addresses are tracked, the oldest window forgotten
 * first (it is also the first to end). An address with no failures and nothing in flight is not
 * kept. IPv6 addresses count by their /64 (one host usually holds a whole /64); IPv4-mapped
 * addresses as IPv4. Behind a proxy every client has the proxy's address: see docs/MACHINE-AUTH.md.
 */

export type FailureReason = 'malformed' | 'unknown_token' | 'expired_token' | 'invalid_jwt' | 'kubernetes' | 'sign_in';

/** What the limiter reports (metrics and the log, wired by the composition root). */
export interface FailureObserver {
  failed(reason: FailureReason): void;
  /** A request refused because its address is limited. */
  refused(): void;
  /** An address reached the limit: once per address per window. */
  limited(address: string, failures: number, retryAfterSeconds: number): void;
}

interface Tally {
  /** When the window opened, epoch ms (the service's clock). */
  openedAt: number;
  failures: number;
  /** Store lookups in flight for this address. */
  pending: number;
  waiters: (() => void)[];
}

export const MAX_ADDRESSES = 10_000;
const NOOP = () => undefined;

export class FailedAuthentications {
  private readonly tallies = new Map<string, Tally>();

  constructor(
    private readonly config: AuthRateLimitConfig,
    private readonly clock: Clock,
    private readonly observer: FailureObserver | null = null,
  ) {}

  /** Addresses tracked now (bounded by MAX_ADDRESSES). */
  get tracked(): number {
    return this.tallies.size;
  }

  /** Refuses (429) an address past the limit; anything else passes. */
  admit(address: string | undefined): void {
    if (!this.config.enabled || address === undefined) return;
    const tally = this.current(keyOf(address), false);
    if (tally && tally.failures >= this.config.max_failures) {
      this.observer?.refused();
      throw rateLimited(this.retryAfter(tally));
    }
  }

  /** Counts a failed attempt from `address` (a sign-in refused, a token unknown, a JWT that does not verify). */
  failed(address: string | undefined, reason: FailureReason): void {
    this.observer?.failed(reason);
    if (!this.config.enabled || address === undefined) return;
    const key = keyOf(address);
    const tally = this.current(key, true)!;
    tally.failures++;
    if (tally.failures === this.config.max_failures) {
      this.observer?.limited(key, tally.failures, this.retryAfter(tally));
      this.wake(tally);
    }
  }

  /**
   * A turn to query the store for `address`'s token: resolves with the release to call once the
   * lookup is over; waits while the address's lookups in flight could exceed the failures it has
   * left; refuses (429) once it is limited.
   */
  async lookupSlot(address: string | undefined): Promise<() => void> {
    if (!this.config.enabled || address === undefined) return NOOP;
    const key = keyOf(address);
    for (;;) {
      const tally = this.current(key, true)!;
      if (tally.failures >= this.config.max_failures) {
        this.observer?.refused();
        throw rateLimited(this.retryAfter(tally));
      }
      if (tally.failures + tally.pending < this.config.max_failures) {
        tally.pending++;
        let released = false;
        return () => {
          if (released) return;
          released = true;
          tally.pending--;
          this.wake(tally);
          this.forgetIfIdle(key, tally);
        };
      }
      await new Promise<void>((resolve) => tally.waiters.push(resolve));
    }
  }

  /** The address's tally in its current window; a new one (the oldest forgotten past the bound) when `create`. */
  private current(key: string, create: boolean): Tally | undefined {
    const now = this.nowMs();
    let tally = this.tallies.get(key);
    if (tally && now >= tally.openedAt + this.config.window) {
      // The window is over: a new one, the same object (lookups in flight keep their count).
      tally.openedAt = now;
      tally.failures = 0;
      this.tallies.delete(key);
      this.tallies.set(key, tally);
    }
    if (tally || !create) return tally;
    if (this.tallies.size >= MAX_ADDRESSES) this.evictOldest();
    tally = { openedAt: now, failures: 0, pending: 0, waiters: [] };
    this.tallies.set(key, tally);
    return tally;
  }

  private evictOldest(): void {
    const [key, oldest] = this.tallies.entries().next().value as [string, Tally];
    this.tallies.delete(key);
    // Whoever waited on it tries again (on a new tally).
    this.wake(oldest);
  }

  private forgetIfIdle(key: string, tally: Tally): void {
    if (tally.failures === 0 && tally.pending === 0 && tally.waiters.length === 0 && this.tallies.get(key) === tally) this.tallies.delete(key);
  }

  private wake(tally: Tally): void {
    const waiters = tally.waiters.splice(0);
    for (const resolve of waiters) resolve();
  }

  private retryAfter(tally: Tally): number {
    return Math.max(1, Math.ceil((tally.openedAt + this.config.window - this.nowMs()) / 1000));
  }

  private nowMs(): number {
    return this.clock.nowMicros() / 1000;
  }
}

/** The address failures are counted by: IPv4 as is (IPv4-mapped IPv6 too), IPv6 by its /64. */
export function keyOf(address: string): string {
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.split('%')[0].split('::');
  const left = head === '' ? [] : head.split(':');
  const right = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => Number.parseInt(g, 16).toString(16)).join(':')}::/64`;
}
