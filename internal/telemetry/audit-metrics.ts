import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The audit trail's metrics (issue 20, item 8), in the service's registry under its namespace:
 *
 * - `audit_events_written_total`: events committed by this process's writes (the store's
 *   announcement after each commit, an import thread's included). Another process's writes on the
 *   same database (another instance, a CLI command) are counted there, or — a CLI command — not at all.
 * - `audit_deliveries_total{sink, outcome}`: each event a sink took (`success`) and each failed
 *   attempt (`failure`), counted where the sink's deliverer runs.
 * - `audit_events_deleted_total`, `audit_deliveries_expired_total`: what the retention job deleted,
 *   and how many of those deliveries a sink never had.
 * - `audit_outbox_backlog{sink}` and `audit_outbox_oldest_age_seconds{sink}`: what waits in the
 *   database's outbox per sink, read at scrape time (one grouped query, at most once a second).
 *   The outbox is the database's, not the process's: only one process of a cluster reports it.
 *
 * Counters are summed across a cluster's workers (merge-scrapes.ts), which is what they mean.
 */

/** A sink as a label: a template's full URL may hold a token, so it is shown by its host only. */
export function sinkLabel(sink: string): string {
  if (!sink.startsWith('template:')) return sink;
  try {
    return `template:${new URL(sink.slice('template:'.length)).host}`;
  } catch {
    return 'template';
  }
}

export interface BacklogRow {
  sink: string;
  count: number;
  /** Epoch µs of the oldest waiting event's write, null when none wait. */
  oldest: number | null;
}

/** How long a backlog read serves scrapes: the outbox query is not run more than once a second. */
const BACKLOG_CACHE_MS = 1000;

export class AuditMetrics {
  private readonly written: Counter;
  private readonly deliveries: Counter<'sink' | 'outcome'>;
  private readonly deleted: Counter;
  private readonly lost: Counter;

  constructor(
    private readonly registry: Registry,
    private readonly n: (name: string) => string,
  ) {
    const registers = [registry];
    this.written = new Counter({ name: n('audit_events_written_total'), help: 'Audit events committed by this process\'s writes', registers });
    this.deliveries = new Counter({ name: n('audit_deliveries_total'), help: 'Audit event deliveries by sink and outcome: success (the sink has the event) or failure (an attempt that will be retried)', labelNames: ['sink', 'outcome'], registers });
    this.deleted = new Counter({ name: n('audit_events_deleted_total'), help: 'Audit events deleted by the retention job (audit.retention)', registers });
    this.lost = new Counter({ name: n('audit_deliveries_expired_total'), help: 'Deliveries still waiting when retention deleted their event (a sink down, or removed, for longer than audit.retention)', registers });
  }

  /** The retention job deleted `events`, `undelivered` of which a sink was still owed. */
  retained(events: number, undelivered: number): void {
    this.deleted.inc(events);
    if (undelivered > 0) this.lost.inc(undelivered);
  }

  eventsWritten(count: number): void {
    this.written.inc(count);
  }

  delivered(sink: string, outcome: 'success' | 'failure', count = 1): void {
    this.deliveries.inc({ sink: sinkLabel(sink), outcome }, count);
  }

  /**
   * The outbox's backlog per sink, read from `read` when scraped (cached ≤ 1 s); the `configured`
   * sinks are reported at 0 when nothing waits for them. `nowMicros`: the service's clock.
   */
  trackBacklog(configured: readonly string[], read: () => Promise<BacklogRow[]>, nowMicros: () => number): void {
    let cached: { at: number; rows: Promise<BacklogRow[]> } | null = null;
    const rows = () => {
      const now = performance.now();
      if (!cached || now - cached.at > BACKLOG_CACHE_MS) cached = { at: now, rows: read().catch(() => []) };
      return cached.rows;
    };
    /** Per label: templates on one host share one, so their rows are added up. */
    const byLabel = async () => {
      const merged = new Map<string, { count: number; oldest: number | null }>(configured.map((sink) => [sinkLabel(sink), { count: 0, oldest: null }]));
      for (const row of await rows()) {
        const label = sinkLabel(row.sink);
        const seen = merged.get(label) ?? { count: 0, oldest: null };
        seen.count += row.count;
        if (row.oldest !== null) seen.oldest = seen.oldest === null ? row.oldest : Math.min(seen.oldest, row.oldest);
        merged.set(label, seen);
      }
      return merged;
    };
    new Gauge({
      name: this.n('audit_outbox_backlog'),
      help: 'Audit events waiting in the outbox for a sink (the database\'s, whichever instance delivers)',
      labelNames: ['sink'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [sink, { count }] of await byLabel()) this.set({ sink }, count);
      },
    });
    new Gauge({
      name: this.n('audit_outbox_oldest_age_seconds'),
      help: 'Age of the oldest audit event waiting in the outbox for a sink',
      labelNames: ['sink'],
      registers: [this.registry],
      async collect() {
        this.reset();
        const now = nowMicros();
        for (const [sink, { oldest }] of await byLabel()) if (oldest !== null) this.set({ sink }, Math.max(0, (now - oldest) / 1e6));
      },
    });
  }
}
