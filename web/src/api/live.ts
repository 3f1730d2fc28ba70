import { CHANGE_EVENT, READY_EVENT, SseParser, type NamespaceChangeJson, type NamespaceReadyJson, type SseMessage } from '../../../internal/wire/events';
import { CLIENT_HEADERS } from './client-header';
import { errorFrom } from './errors';
import { authorization, noteCsrfToken, path, relative, unauthorized } from './http';

/**
 * The dashboard's live updates: Pennon's namespace event stream (`GET
 * /api/v1/namespaces/{ns}/events`, internal/wire/events.ts) read with fetch — not EventSource,
 * which cannot send the Authorization header a pasted token authenticates with — its body taken
 * as it arrives and parsed by the wire room's SseParser. Screens hear a `LiveChange` per new
 * revision of the namespace (the flags it touched) and read again what they show.
 *
 * When the stream drops (the server restarts, a proxy cuts it, no heartbeat for too long) it is
 * opened again after a wait that doubles from 1 s to 30 s; meanwhile the screens are told to
 * read again every 10 s (the fallback poll), and once it is back, once more (whatever changed
 * while it was away). A 401 goes where any API call's does: the login screen.
 */

export type LiveStatus = 'connecting' | 'live' | 'offline';

/** The namespace moved to another revision: `flags` the flags touched; null when unknown (read everything again). */
export interface LiveChange {
  namespace: string;
  flags: readonly string[] | null;
}

export interface LiveTiming {
  /** The first wait before reconnecting (ms); it doubles on each failure up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** While disconnected, how often screens are told to read again (ms). */
  pollMs: number;
  /** How long opening the stream (up to its `ready`) may take before it counts as failed (ms). */
  connectTimeoutMs: number;
}

export const LIVE_TIMING: LiveTiming = { backoffMs: 1000, maxBackoffMs: 30_000, pollMs: 10_000, connectTimeoutMs: 10_000 };

/** Heartbeats missed before a silent stream counts as dead (proxies can hold a dead one open). */
const MISSED_HEARTBEATS = 2;

export class NamespaceStream {
  private state: LiveStatus = 'connecting';
  private readonly listeners = new Set<(change: LiveChange) => void>();
  private readonly statusListeners = new Set<(status: LiveStatus) => void>();
  private abort: AbortController | null = null;
  private closed = false;
  private failures = 0;
  private heartbeatMs = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pollTimer: ReturnType<typeof setInterval> | undefined;
  private watchdog: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly namespace: string,
    private readonly timing: LiveTiming = LIVE_TIMING,
  ) {
    void this.connect();
  }

  get status(): LiveStatus {
    return this.state;
  }

  /** Hears every change until the returned function is called. */
  subscribe(listener: (change: LiveChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onStatus(listener: (status: LiveStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Hangs up for good (another namespace, the layout gone, logged out). */
  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pollTimer);
    clearTimeout(this.watchdog);
    this.abort?.abort();
    this.listeners.clear();
    this.statusListeners.clear();
  }

  private async connect(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    // Until `ready`, the connection has connectTimeoutMs; then heartbeats keep it.
    this.arm(this.timing.connectTimeoutMs);
    try {
      const res = await fetch(relative(path`/api/v1/namespaces/${this.namespace}/events`), {
        headers: { accept: 'text/event-stream', ...CLIENT_HEADERS, ...authorization() },
        cache: 'no-store',
        // A browser session's cookie goes along, as on every request (api/http.ts).
        credentials: 'same-origin',
        signal: abort.signal,
      });
      noteCsrfToken(res);
      if (!res.ok || !res.body) {
        const error = errorFrom(res.status, await res.text().catch(() => ''));
        if (res.status === 401) {
          this.close();
          unauthorized(error);
          return;
        }
        throw error;
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SseParser();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        if (this.heartbeatMs > 0) this.arm(this.heartbeatMs * MISSED_HEARTBEATS + 5000);
        for (const message of parser.push(chunk.value)) this.take(message);
      }
    } catch {
      // Aborted by close() (nothing more to do) or by the watchdog, refused, or cut: reconnect below.
    } finally {
      clearTimeout(this.watchdog);
      if (!this.closed) this.dropped();
    }
  }

  private take(message: SseMessage): void {
    if (message.event === READY_EVENT) {
      const ready = JSON.parse(message.data) as NamespaceReadyJson;
      this.heartbeatMs = ready.heartbeatMs;
      if (this.heartbeatMs > 0) this.arm(this.heartbeatMs * MISSED_HEARTBEATS + 5000);
      else clearTimeout(this.watchdog);
      this.failures = 0;
      clearInterval(this.pollTimer);
      this.pollTimer = undefined;
      this.setStatus('live');
      // Whatever changed before the stream was there to say it (while away, or while the screen loaded): read once more.
      this.emit({ namespace: this.namespace, flags: null });
    } else if (message.event === CHANGE_EVENT) {
      const change = JSON.parse(message.data) as NamespaceChangeJson;
      this.emit({ namespace: change.namespace, flags: change.flags });
    }
  }

  /** The stream ended or could not open: poll slowly, and try again after a growing wait. */
  private dropped(): void {
    this.setStatus('offline');
    this.pollTimer ??= setInterval(() => this.emit({ namespace: this.namespace, flags: null }), this.timing.pollMs);
    const wait = Math.min(this.timing.maxBackoffMs, this.timing.backoffMs * 2 ** this.failures);
    this.failures++;
    // ±20%: many dashboards cut off by one restart do not all come back at the same instant.
    this.retryTimer = setTimeout(() => void this.connect(), wait * (0.8 + Math.random() * 0.4));
  }

  /** Aborts the connection if nothing arrives within `ms` (a stalled connect, or heartbeats that stopped). */
  private arm(ms: number): void {
    clearTimeout(this.watchdog);
    const abort = this.abort;
    this.watchdog = setTimeout(() => abort?.abort(), ms);
  }

  private emit(change: LiveChange): void {
    for (const listener of [...this.listeners]) listener(change);
  }

  private setStatus(status: LiveStatus): void {
    if (status === this.state) return;
    this.state = status;
    for (const listener of [...this.statusListeners]) listener(status);
  }
}
