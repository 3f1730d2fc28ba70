/**
 * A circuit breaker for a dependency that can go silent: connections accepted, nothing
 * answered (a network partition). Without one, every call waits its full timeout before
 * falling back — a cache that should save a request time costs it 500 ms. Once tripped (the
 * first call that timed out or lost its connection), calls short-circuit at once; a probe runs
 * in the background every `intervalMs` — one at a time, bounded by the probe's own timeout —
 * and the first that succeeds closes the breaker.
 */
export interface BreakerEvents {
  /** The breaker tripped: calls short-circuit from now on. */
  opened(err: unknown): void;
  /** A probe succeeded: calls go through again. */
  closed(): void;
}

export class CircuitBreaker {
  private openSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    /** Resolves true when the dependency answers (it must bound its own wait). */
    private readonly probe: () => Promise<boolean>,
    private readonly intervalMs: number,
    private readonly events: BreakerEvents,
  ) {}

  /** Whether calls short-circuit now. */
  get isOpen(): boolean {
    return this.openSince !== null;
  }

  /** When it tripped (epoch ms), while open. */
  get since(): number | null {
    return this.openSince;
  }

  /** A call failed in a way the next ones would too (a timeout, a lost connection): short-circuit them. */
  trip(err: unknown): void {
    if (this.openSince !== null || this.stopped) return;
    this.openSince = Date.now();
    this.events.opened(err);
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.runProbe(), this.intervalMs);
    this.timer.unref();
  }

  private async runProbe(): Promise<void> {
    this.timer = null;
    const answered = await this.probe().catch(() => false);
    if (this.stopped) return;
    if (!answered) return this.schedule();
    this.openSince = null;
    this.events.closed();
  }
}
