import type { Logger } from 'pino';
import type { Clock } from '../core';
import type { AuditDelivery, AuditStore } from '../storage';
import { sinkLabel, type AuditMetrics } from '../telemetry';
import { Lease, type LeaseTiming } from './lease';
import type { AuditSink } from './sinks';

/**
 * One sink's delivery loop (issue 20, item 3). Events wait in the database's outbox until the sink
 * has them; the process holding the sink's lease (`audit-sink:<name>`) takes the oldest
 * `capacity` (audit.buffer.capacity), delivers the due ones in order, acknowledges what the sink
 * took, and on a failure puts that event off — exponential backoff with full jitter, capped at
 * audit.sinks.webhook.max_backoff_duration — with everything behind it waiting too: a sink
 * receives events in the order they were written. Nothing is given up: an event leaves the
 * outbox when the sink has it, or when retention deletes it.
 *
 * Writes never wait on this: they only add outbox rows, and `wake()` (after a local commit) just
 * ends the loop's pause. The loop holds at most one batch, whatever the backlog.
 */

export interface DeliveryTiming {
  /** Events taken per round (audit.buffer.capacity). */
  capacity: number;
  /** The longest pause before retrying an event (audit.sinks.webhook.max_backoff_duration). */
  maxBackoffMs: number;
  /** The pause when nothing is due: how soon another instance's writes are seen. */
  pollMs: number;
  /** The first retry's window; it doubles with each failed attempt. */
  baseBackoffMs: number;
  lease: LeaseTiming;
}

export const DEFAULT_DELIVERY: Omit<DeliveryTiming, 'capacity' | 'maxBackoffMs'> = {
  pollMs: 1000,
  baseBackoffMs: 250,
  lease: { ttlMs: 10_000, renewMs: 2_000 },
};

/** The least pause before a retry: full jitter may draw 0, and a sink that is down must not be hammered. */
const MIN_BACKOFF_MS = 50;
/** A sink failing over and over is logged once, then at most this often. */
const FAILURE_LOG_EVERY_MS = 60_000;

/** Full jitter: a pause drawn from [0, min(max, base·2^(attempts-1))]. */
export function backoffMs(attempts: number, timing: Pick<DeliveryTiming, 'baseBackoffMs' | 'maxBackoffMs'>, random = Math.random): number {
  const window = Math.min(timing.maxBackoffMs, timing.baseBackoffMs * 2 ** Math.min(30, attempts - 1));
  return Math.max(MIN_BACKOFF_MS, Math.floor(random() * window));
}

export interface SinkDeps {
  store: AuditStore;
  clock: Clock;
  logger: Logger;
  metrics: AuditMetrics | null;
  holder: string;
  timing: DeliveryTiming;
  /** While true, the loop writes nothing (neither lease nor outbox): see AuditDelivery.hold. */
  paused?: () => boolean;
}

export class SinkDelivery {
  private readonly lease: Lease;
  private readonly abort = new AbortController();
  private closed = false;
  private woken = false;
  private wakeUp: (() => void) | null = null;
  /** Epoch µs before which a wake changes nothing: the head of the outbox is not due yet. */
  private blockedUntil = 0;
  private loop: Promise<void> | null = null;
  private failing: { since: number; logged: number; count: number } | null = null;
  private databaseLogged = -Infinity;

  constructor(
    private readonly sink: AuditSink,
    private readonly deps: SinkDeps,
  ) {
    const { store, holder, clock, timing, logger } = deps;
    this.lease = new Lease(store, `audit-sink:${sink.name}`, holder, clock, timing.lease, () => {
      logger.info({ sink: sinkLabel(sink.name) }, 'this instance delivers audit events to the sink (it holds its lease)');
      this.wake(true);
    }, (err) => logger.debug({ err, sink: sinkLabel(sink.name) }, 'the audit sink lease could not be renewed'), deps.paused);
  }

  /** The sink as logs and metrics name it (a template by its host: its URL may hold a token). */
  private get label(): string {
    return sinkLabel(this.sink.name);
  }

  get name(): string {
    return this.sink.name;
  }

  start(): void {
    this.lease.start();
    this.loop = this.run();
  }

  /** After a pause: the lease renewed and the outbox read at once. */
  resume(): void {
    void this.lease.renew().then(() => this.wake(true));
  }

  /** Something was written (or the lease taken): look at the outbox now rather than at the next poll. */
  wake(force = false): void {
    if (!force && this.deps.clock.nowMicros() < this.blockedUntil) return;
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops taking new events, lets the attempt in flight end (bounded by its timeout), acknowledges what was delivered, releases the lease. */
  async close(): Promise<void> {
    this.closed = true;
    this.wakeUp?.();
    await this.loop;
    await this.lease.release();
    this.abort.abort();
    await this.sink.close();
  }

  private async pause(ms: number): Promise<void> {
    if (this.woken || this.closed) {
      this.woken = false;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.wakeUp = resolve;
      timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
    this.wakeUp = null;
    this.woken = false;
  }

  private async run(): Promise<void> {
    const { pollMs } = this.deps.timing;
    while (!this.closed) {
      let wait: number;
      try {
        wait = await this.round();
      } catch (err) {
        // The database (reading or acknowledging): tried again at the next poll, logged once a minute.
        const now = performance.now();
        if (now - this.databaseLogged >= FAILURE_LOG_EVERY_MS) {
          this.databaseLogged = now;
          this.deps.logger.warn({ err, sink: this.label }, 'audit delivery could not read or update the outbox; trying again every poll');
        }
        wait = pollMs;
      }
      if (wait > 0) await this.pause(wait);
    }
  }

  /** One batch; resolves with how long to pause before the next (0: at once). */
  private async round(): Promise<number> {
    const { store, clock, timing, metrics } = this.deps;
    const name = this.sink.name;
    if (!this.lease.held() || this.deps.paused?.()) return timing.pollMs;
    const pending = await store.pendingAuditDeliveries(name, timing.capacity);
    if (pending.length === 0) return timing.pollMs;
    const now = clock.nowMicros();
    const due: AuditDelivery[] = [];
    for (const delivery of pending) {
      if (delivery.nextAttemptAt > now) break;
      due.push(delivery);
    }
    if (due.length === 0) {
      this.blockedUntil = pending[0].nextAttemptAt;
      return Math.max(1, Math.min(timing.pollMs, Math.ceil((pending[0].nextAttemptAt - now) / 1000)));
    }
    this.blockedUntil = 0;
    const delivered: string[] = [];
    let failure: { delivery: AuditDelivery; err: unknown } | null = null;
    const step = this.sink.batched ? due.length : 1;
    for (let i = 0; i < due.length && !this.closed && this.lease.held(); i += step) {
      const chunk = due.slice(i, i + step);
      try {
        await this.sink.send(chunk.map((d) => d.event), this.abort.signal);
        for (const d of chunk) delivered.push(d.event.id);
      } catch (err) {
        failure = { delivery: chunk[0], err };
        break;
      }
    }
    if (delivered.length > 0) {
      await store.acknowledgeAuditDeliveries(name, delivered);
      metrics?.delivered(name, 'success', delivered.length);
    }
    if (failure) {
      const attempts = failure.delivery.attempts + 1;
      const delay = backoffMs(attempts, timing);
      const message = failure.err instanceof Error ? failure.err.message : String(failure.err);
      await store.deferAuditDelivery(name, failure.delivery.event.id, attempts, clock.nowMicros() + delay * 1000, message);
      metrics?.delivered(name, 'failure');
      this.failed(failure.delivery, attempts, message, delay);
      return 0;
    }
    if (this.failing) {
      this.deps.logger.info({ sink: this.label, failedAttempts: this.failing.count }, 'audit delivery to the sink works again');
      this.failing = null;
    }
    // More may wait behind a full batch, or events behind the delivered ones fall due soon: look again now.
    const more = pending.length === timing.capacity || due.length < pending.length;
    return more && delivered.length === due.length ? 0 : timing.pollMs;
  }

  private failed(delivery: AuditDelivery, attempts: number, error: string, retryInMs: number): void {
    const now = performance.now();
    const first = this.failing === null;
    this.failing ??= { since: now, logged: 0, count: 0 };
    this.failing.count++;
    if (!first && now - this.failing.logged < FAILURE_LOG_EVERY_MS) return;
    this.failing.logged = now;
    this.deps.logger.warn(
      { sink: this.label, event: delivery.event.id, attempts, error, retryInMs, failedAttempts: this.failing.count },
      'an audit event could not be delivered; it is kept and retried (events behind it wait, in order)',
    );
  }
}
