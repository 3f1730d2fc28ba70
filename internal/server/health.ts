/**
 * Whether this instance should get traffic, for `GET /health` and the gRPC health service.
 *
 * A small state machine: `starting` (schema, bootstrap token and poller not ready yet) →
 * `serving` → `draining` (shutdown begun; never leaves it). While serving, the instance is
 * NOT_SERVING only when its store is unusable: the database is unreachable **and** it holds no
 * snapshot to answer evaluations from. A database outage with snapshots held stays SERVING —
 * evaluations keep answering from them, and taking every instance out of a load balancer at
 * once during a database blip would turn a write outage into a full one (docs/DECISIONS.md).
 *
 * Problems (database, cache) are listed so an operator sees what is wrong and since when. Only
 * a short reason (an error code) is shown — the endpoint is public; the logs have the details.
 */
interface Problem {
  reason: string;
  since: number;
}

export interface CacheLink {
  readonly available: boolean;
}

export type HealthPhase = 'starting' | 'serving' | 'draining';
export type ServingStatus = 'SERVING' | 'NOT_SERVING';

export interface HealthReport {
  status: ServingStatus;
  problems?: string[];
}

/** The first error code along the causes (a store error wraps the driver's), else "unreachable". */
function reasonOf(err: unknown): string {
  for (let e = err as { code?: unknown; cause?: unknown } | null, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && /^[A-Z0-9_]{2,40}$/.test(e.code)) return e.code;
  }
  return 'unreachable';
}

export class HealthState {
  private cache: CacheLink | null = null;
  /** Starting until the service calls `ready()`. */
  private phaseNow: HealthPhase = 'starting';
  private database: Problem | null = null;
  private cacheDownSince: number | null = null;
  private holdsSnapshot: () => boolean = () => false;
  private readonly listeners = new Set<(status: ServingStatus) => void>();
  private last: ServingStatus;

  constructor() {
    this.last = this.status();
  }

  get phase(): HealthPhase {
    return this.phaseNow;
  }

  /** The cache whose outages are reported (it never makes the instance NOT_SERVING). */
  watchCache(cache: CacheLink | null): void {
    this.cache = cache;
  }

  /** How to tell whether any snapshot is held (what a database outage is survivable with). */
  watchSnapshots(holdsSnapshot: () => boolean): void {
    this.holdsSnapshot = holdsSnapshot;
    this.changed();
  }

  /** Start-up finished: traffic welcome. Ignored once draining. */
  ready(): void {
    if (this.phaseNow !== 'starting') return;
    this.phaseNow = 'serving';
    this.changed();
  }

  /** Shutdown begun: NOT_SERVING from now on, for good. */
  drain(): void {
    this.phaseNow = 'draining';
    this.changed();
  }

  /** The outcome of a database check: null when it answered. */
  databaseChecked(err: unknown): void {
    if (err === null || err === undefined) this.database = null;
    else this.database ??= { reason: reasonOf(err), since: Date.now() };
    this.changed();
  }

  /** The store is unusable: no database and nothing held to answer from. */
  private storeUnusable(): boolean {
    return this.database !== null && !this.holdsSnapshot();
  }

  status(): ServingStatus {
    return this.phaseNow === 'serving' && !this.storeUnusable() ? 'SERVING' : 'NOT_SERVING';
  }

  /** Called with the new status whenever it changes (gRPC Watch); returns the unsubscriber. */
  onChange(listener: (status: ServingStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  report(): HealthReport {
    const problems: string[] = [];
    if (this.phaseNow === 'starting') problems.push('starting');
    if (this.phaseNow === 'draining') problems.push('shutting down');
    if (this.database) {
      const since = `database unavailable (${this.database.reason}) since ${new Date(this.database.since).toISOString()}`;
      if (this.phaseNow === 'starting') problems.push(`${since}: waiting for it`);
      else if (this.storeUnusable()) problems.push(`${since}: no snapshot held to answer from`);
      else problems.push(`${since}: evaluations are answered from the last snapshot; writes are refused`);
    }
    if (this.cache && !this.cache.available) {
      this.cacheDownSince ??= Date.now();
      problems.push(`cache unavailable since ${new Date(this.cacheDownSince).toISOString()}: working from the database`);
    } else {
      this.cacheDownSince = null;
    }
    const status = this.status();
    return problems.length === 0 ? { status } : { status, problems };
  }

  private changed(): void {
    const now = this.status();
    if (now === this.last) return;
    this.last = now;
    for (const listener of this.listeners) listener(now);
  }
}

/**
 * The service names a health check may ask about: "" (the whole server, what Flipt registers),
 * `flipt.Flipt` (Flipt's API service, for checks written against Flipt) and `pennon`.
 */
export const HEALTH_SERVICES: ReadonlySet<string> = new Set(['', 'flipt.Flipt', 'pennon']);
