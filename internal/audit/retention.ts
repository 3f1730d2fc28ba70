import type { Logger } from 'pino';
import type { Clock } from '../core';
import type { AuditStore } from '../storage';
import type { AuditMetrics } from '../telemetry';

/**
 * The retention job (issue 20, item 2): events older than `audit.retention` are deleted, a batch
 * per short transaction, by one process of the service at a time — the holder of the
 * `audit-retention` lease, taken for two intervals at each run so that the same process keeps
 * it while it lives and another takes over once it is gone. Events still waiting for a sink are
 * deleted with them (the sink was down for longer than the retention): counted and warned about.
 */

export interface RetentionOptions {
  store: AuditStore;
  clock: Clock;
  logger: Logger;
  metrics: AuditMetrics | null;
  holder: string;
  /** audit.retention, ms. */
  retentionMs: number;
  /** Between two runs. */
  intervalMs?: number;
  /** Events per delete transaction. */
  batch?: number;
  /** While true, a scheduled run is skipped (see AuditDelivery.hold). */
  paused?: () => boolean;
}

export const RETENTION_INTERVAL_MS = 5 * 60_000;
const RETENTION_BATCH = 1000;
/** The first run, a little after start: not in the way of the start itself. */
const FIRST_RUN_MS = 10_000;

export interface RetentionResult {
  /** False when another process holds the lease (nothing was done). */
  ran: boolean;
  events: number;
  undelivered: number;
}

export class RetentionJob {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;
  private readonly intervalMs: number;

  constructor(private readonly options: RetentionOptions) {
    this.intervalMs = options.intervalMs ?? RETENTION_INTERVAL_MS;
  }

  start(firstRunMs = FIRST_RUN_MS): void {
    const schedule = (ms: number) => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        if (this.options.paused?.()) return schedule(this.intervalMs);
        this.running = this.runOnce()
          .catch((err: unknown) => this.options.logger.warn({ err }, 'the audit retention job failed; it runs again at its next interval'))
          .finally(() => schedule(this.intervalMs));
      }, ms);
      this.timer.unref();
    };
    schedule(firstRunMs);
  }

  /** One run: when this process holds (or takes) the lease, every expired event deleted. */
  async runOnce(): Promise<RetentionResult> {
    const { store, clock, logger, holder, retentionMs } = this.options;
    const now = clock.nowMicros();
    const leased = await store.acquireAuditLease('audit-retention', holder, now, now + 2 * this.intervalMs * 1000);
    if (!leased) return { ran: false, events: 0, undelivered: 0 };
    const before = now - retentionMs * 1000;
    const batch = this.options.batch ?? RETENTION_BATCH;
    const total = { ran: true, events: 0, undelivered: 0 };
    for (;;) {
      const removed = await store.deleteAuditEventsBefore(before, batch);
      total.events += removed.events;
      total.undelivered += removed.undelivered;
      if (removed.events < batch || this.stopped) break;
    }
    if (total.events > 0) {
      this.options.metrics?.retained(total.events, total.undelivered);
      logger.info({ events: total.events, olderThanMs: retentionMs }, 'audit events past audit.retention deleted');
    }
    if (total.undelivered > 0) {
      logger.warn({ deliveries: total.undelivered }, 'audit events deleted by retention before a sink had them: a sink has been failing (or was removed from the configuration) for longer than audit.retention');
    }
    return total;
  }

  /** Stops scheduling, waits for a run in progress (a batch at most once stopped), gives the lease up. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.options.store.releaseAuditLease('audit-retention', this.options.holder).catch(() => undefined);
  }
}
