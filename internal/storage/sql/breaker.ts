import { unavailable } from '../../core';
import { isDeadlineExceeded } from './dialects/deadline';

/** How often the database is asked whether it answers, and how long it has to answer. */
export const PROBE_INTERVAL_MS = 250;
export const PROBE_TIMEOUT_MS = 750;

/** Told `null` when the database answers again, the failure when it stops answering. */
export type BreakerListener = (failure: unknown) => void;

/**
 * A circuit breaker on the database. A probe asks it a trivial question every
 * PROBE_INTERVAL_MS, on a connection of its own, with PROBE_TIMEOUT_MS to answer: so a partition
 * (connections accepted, nothing answered) or a refusal is known within a second, whether or not
 * any request is running. While the last probe failed the breaker is open: every store call
 * fails at once with Unavailable instead of each waiting its own deadline, and requests queued
 * behind a dead database do not pile up. The next probe that is answered closes it.
 *
 * Only the probe opens it: a request that fails as if the database were unreachable (a deadline,
 * a refused connection) asks for a probe at once, but a full pool or one slow statement under
 * load never turns the breaker on by itself. A probe that is late (not refused) while store
 * calls are being answered does not open it either, and a late answer closes it the moment it
 * comes (the probe keeps waiting on the same question: dialects/deadline.ts, probeSessions).
 */
export class DatabaseBreaker {
  private failure: unknown = null;
  private lastAnswer = 0;
  private openSince = 0;
  private running = false;
  /** Stopped for good (the service is closing): a probe failing now is the closing, not an outage. */
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private readonly listeners = new Set<BreakerListener>();

  constructor(
    private readonly probe: (timeoutMs: number) => Promise<void>,
    private readonly timing: { intervalMs: number; timeoutMs: number } = { intervalMs: PROBE_INTERVAL_MS, timeoutMs: PROBE_TIMEOUT_MS },
  ) {}

  get open(): boolean {
    return this.failure !== null;
  }

  /** Throws Unavailable at once while the database is known not to answer. */
  check(): void {
    if (this.failure === null) return;
    throw unavailable(
      `the database has not answered since ${new Date(this.openSince).toISOString()}; failing at once until it does (checked every ${this.timing.intervalMs} ms)`,
      this.failure,
    );
  }

  /** A call failed as if the database were unreachable: probe now rather than at the next interval. */
  suspect(): void {
    this.wake?.();
  }

  onChange(listener: BreakerListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts probing in the background; returns how to stop. */
  start(): () => Promise<void> {
    if (!this.running) {
      this.running = true;
      this.loop = this.run();
    }
    return () => this.stop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopped = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  /** A store call was answered: the database answers, whatever a slow probe says meanwhile. */
  answered(): void {
    this.lastAnswer = performance.now();
  }

  /**
   * One probe, and the breaker set from its outcome. Returns false when the outcome was left
   * undecided: the probe was late, but store calls were answered within its window.
   */
  async probeOnce(): Promise<boolean> {
    try {
      await this.probe(this.timing.timeoutMs);
      this.set(null);
    } catch (err) {
      // Late while requests are being answered is a busy database (or machine), not an
      // unreachable one: shutting writes out then would turn load into an outage.
      if (isDeadlineExceeded(err) && this.lastAnswer > performance.now() - this.timing.timeoutMs) return false;
      this.set(err ?? new Error('the database health check failed'));
    }
    return true;
  }

  private async run(): Promise<void> {
    while (this.running) {
      // Undecided: ask again at once (the same question, a new window) rather than an interval later.
      if (!(await this.probeOnce())) continue;
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.timing.intervalMs);
        timer.unref();
        const self = this;
        function done() {
          clearTimeout(timer);
          self.wake = null;
          resolve();
        }
        this.wake = done;
      });
    }
  }

  private set(failure: unknown): void {
    if (this.stopped) return;
    if ((failure === null) === (this.failure === null)) return;
    this.failure = failure;
    if (failure !== null) this.openSince = Date.now();
    for (const listener of this.listeners) listener(failure);
  }
}
