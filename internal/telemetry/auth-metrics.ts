import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Authentication's metrics, in the service's registry under its namespace:
 *
 * - `auth_failures_total{reason}`: failed attempts (malformed, unknown_token, expired_token,
 *   invalid_jwt, kubernetes, sign_in) — what authentication.rate_limit counts;
 * - `auth_rate_limited_total`: requests refused (429 / RESOURCE_EXHAUSTED) because their address
 *   was past the limit;
 * - `auth_token_lookups_total`: client-token lookups that reached the store (the local and
 *   negative caches and the limiter keep most away from it);
 * - `auth_tracked_addresses`: addresses with failures in their window (bounded, auth/failures.ts).
 */
export class AuthMetrics {
  private readonly failures: Counter<'reason'>;
  private readonly limited: Counter;
  private readonly lookups: Counter;
  private readonly trackedGauge: Gauge;
  private tracked: () => number = () => 0;

  constructor(registry: Registry, n: (name: string) => string) {
    const registers = [registry];
    this.failures = new Counter({ name: n('auth_failures_total'), help: 'Failed authentication attempts by reason', labelNames: ['reason'], registers });
    this.limited = new Counter({ name: n('auth_rate_limited_total'), help: 'Requests refused because their address failed to authenticate too often (authentication.rate_limit)', registers });
    this.lookups = new Counter({ name: n('auth_token_lookups_total'), help: 'Client token lookups that reached the store', registers });
    this.trackedGauge = new Gauge({ name: n('auth_tracked_addresses'), help: 'Client addresses with failed authentication attempts in their window', registers, collect: () => this.trackedGauge.set(this.tracked()) });
  }

  failed(reason: string): void {
    this.failures.inc({ reason });
  }

  refused(): void {
    this.limited.inc();
  }

  lookedUp(): void {
    this.lookups.inc();
  }

  trackAddresses(count: () => number): void {
    this.tracked = count;
  }
}
