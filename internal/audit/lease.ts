import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../core';
import type { AuditStore } from '../storage';

/**
 * A named lease in the database (`audit_leases`): what makes a job run in one process of a
 * service however many instances and workers share the database — a sink's delivery (in order,
 * once), the retention job. Taken and renewed on a timer; counted as held only until a margin
 * before it lapses, so a process whose renewals stop (a partition, a stalled event loop) stops
 * acting before another can take over. Released at shutdown, so a successor need not wait.
 */

/** This process's name on its leases: host and pid for people, random bytes so two processes never share one. */
export function leaseHolder(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

export interface LeaseTiming {
  /** How long a lease lasts once taken or renewed. */
  ttlMs: number;
  /** How often it is renewed (and, while another holds it, tried). */
  renewMs: number;
}

/** 10 s, renewed every 2 s: a holder killed without releasing is replaced within ~10 s. */
export const DEFAULT_LEASE: LeaseTiming = { ttlMs: 10_000, renewMs: 2_000 };

export class Lease {
  /** Epoch µs until which this process acts as the holder. */
  private validUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly store: AuditStore,
    readonly name: string,
    private readonly holder: string,
    private readonly clock: Clock,
    private readonly timing: LeaseTiming,
    /** Called when this process takes the lease (not at each renewal). */
    private readonly onTaken: () => void,
    private readonly onError: (err: unknown) => void,
    /** While true, no renewal is written (see AuditDelivery.hold): the lease may lapse, and is taken again after. */
    private readonly paused: () => boolean = () => false,
  ) {}

  held(): boolean {
    return this.clock.nowMicros() < this.validUntil;
  }

  /** Takes the lease at once if it is free, then renews (or tries) every renewMs. */
  start(): void {
    void this.renew();
    this.timer = setInterval(() => void this.renew(), this.timing.renewMs);
    this.timer.unref();
  }

  /** Renews now (after a pause, at once rather than at the next tick). */
  renew(): Promise<void> {
    if (this.paused()) return Promise.resolve();
    // One renewal at a time: a slow database must not pile them up.
    this.renewing ??= (async () => {
      const wasHeld = this.held();
      const now = this.clock.nowMicros();
      try {
        const taken = await this.store.acquireAuditLease(this.name, this.holder, now, now + this.timing.ttlMs * 1000);
        if (this.stopped) return;
        // Held until a renewal interval (and a margin as long) before it lapses: this process
        // stops acting before another can take over, whatever the database's delay.
        this.validUntil = taken ? now + Math.max(0, this.timing.ttlMs - 2 * this.timing.renewMs) * 1000 : 0;
        if (taken && !wasHeld) this.onTaken();
      } catch (err) {
        this.onError(err);
      } finally {
        this.renewing = null;
      }
    })();
    return this.renewing;
  }

  /** Stops renewing and gives the lease up (if held), so another process takes over at once. */
  async release(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.renewing;
    this.validUntil = 0;
    await this.store.releaseAuditLease(this.name, this.holder).catch((err: unknown) => this.onError(err));
  }
}
