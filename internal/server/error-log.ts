import type { Logger } from 'pino';

/**
 * Request-level error lines, at most one per kind of failure per interval. During an outage
 * every request fails the same way — 15 refused writes a second each wrote a level-50 line with
 * its stack — and the flood buries whatever else the log says. Here the first failure of a kind
 * is logged in full (with its request id and error); the next ones within `intervalMs` are
 * counted, and one summary line says how many there were ("… and 14 more like it in the last
 * 10 s"), when the interval ends or at the next failure after it.
 *
 * Kinds are bounded: past MAX_KINDS open at once, failures share one overflow kind, so nothing
 * a client sends can grow the table.
 */

/** How long one kind of failure is summarised before it is logged in full again. */
export const ERROR_LOG_INTERVAL_MS = 10_000;
const MAX_KINDS = 100;
const OVERFLOW = 'other failures';

interface Window {
  started: number;
  msg: string;
  suppressed: number;
  timer: NodeJS.Timeout | null;
}

export interface ErrorLogOptions {
  intervalMs?: number;
  /** The level its lines are written at (default error; refusals that are the caller's doing: warn). */
  level?: 'error' | 'warn';
  /** The time in epoch ms (the service's clock: a test moves it instead of waiting). */
  now?: () => number;
}

export class RequestErrorLog {
  private readonly windows = new Map<string, Window>();
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly level: 'error' | 'warn';

  constructor(
    readonly logger: Logger,
    options: ErrorLogOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? ERROR_LOG_INTERVAL_MS;
    this.now = options.now ?? Date.now;
    this.level = options.level ?? 'error';
  }

  /** Logs a failure at error level, unless one of its `kind` was logged within the interval. */
  error(kind: string, fields: Record<string, unknown>, msg: string): void {
    const now = this.now();
    let key = kind;
    const open = this.windows.get(key);
    if (open && now - open.started >= this.intervalMs) this.flush(key, open);
    else if (open) return this.suppress(key, open, now);
    if (!this.windows.has(key) && this.windows.size >= MAX_KINDS) {
      this.sweep(now);
      if (this.windows.size >= MAX_KINDS) key = OVERFLOW;
      const overflow = this.windows.get(key);
      if (overflow) return this.suppress(key, overflow, now);
    }
    this.windows.set(key, { started: now, msg, suppressed: 0, timer: null });
    this.logger[this.level]({ ...fields, failure: key }, msg);
  }

  /** Writes every pending summary (at shutdown). */
  close(): void {
    for (const [key, window] of this.windows) this.flush(key, window);
  }

  private suppress(key: string, window: Window, now: number): void {
    window.suppressed++;
    // The summary is written when the interval ends, even if no failure of this kind follows.
    if (window.timer === null) {
      window.timer = setTimeout(() => this.flush(key, window), Math.max(0, window.started + this.intervalMs - now));
      window.timer.unref();
    }
  }

  private flush(key: string, window: Window): void {
    if (this.windows.get(key) !== window) return;
    this.windows.delete(key);
    if (window.timer) clearTimeout(window.timer);
    if (window.suppressed === 0) return;
    const interval = this.intervalMs >= 1000 ? `${Math.round(this.intervalMs / 1000)} s` : `${this.intervalMs} ms`;
    this.logger[this.level](
      { failure: key, suppressed: window.suppressed, intervalMs: this.intervalMs },
      `${window.msg} … and ${window.suppressed} more like it in the last ${interval}`,
    );
  }

  /** Closes the windows whose interval has passed. */
  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (now - window.started >= this.intervalMs) this.flush(key, window);
  }
}
