import type { Logger } from 'pino';
import type { AuditConfig } from '../config';
import type { Clock } from '../core';
import type { AuditStore } from '../storage';
import { sinkLabel, type AuditMetrics } from '../telemetry';
import { DEFAULT_DELIVERY, SinkDelivery, type DeliveryTiming } from './deliverer';
import { egressPolicy } from './egress';
import { httpPoster } from './http';
import { leaseHolder } from './lease';
import { RetentionJob } from './retention';
import { configuredSinks } from './sinks';

/**
 * The audit trail's delivery: each configured sink's loop (deliverer.ts) and the retention job
 * (retention.ts), one process of the service doing each at a time through the database's leases.
 * The events and their outbox rows are written by the store, with the writes (storage/sql).
 */

export { auditSinkSelections } from './selection';
export { auditConfigProblems, checkAuditSinks } from './checks';

export interface AuditDeliveryOptions {
  audit: AuditConfig;
  store: AuditStore;
  clock: Clock;
  logger: Logger;
  metrics: AuditMetrics | null;
  /** Tests shorten these; the defaults are the service's. */
  timing?: Partial<Omit<DeliveryTiming, 'capacity' | 'maxBackoffMs'>>;
  retentionIntervalMs?: number;
  /** When the retention job first runs (default: 10 s after start). */
  retentionFirstRunMs?: number;
}

export interface AuditDelivery {
  /** The sinks' names, as the outbox knows them. */
  readonly sinks: readonly string[];
  readonly retention: RetentionJob;
  /** Something was written: every sink looks at its outbox now. */
  wake(): void;
  /**
   * Holds every database write of the delivery (leases, acknowledgements, retention) until the
   * returned release is called: for SQLite while an import thread holds the file's write lock,
   * which a write from this thread would wait for synchronously, holding the event loop.
   */
  hold(): () => void;
  /** The loops end (an attempt in flight bounded by audit.sinks.webhook.timeout), leases released. */
  close(): Promise<void>;
}

export async function startAuditDelivery(options: AuditDeliveryOptions): Promise<AuditDelivery> {
  const { audit, store, clock, logger, metrics } = options;
  const hook = audit.sinks.webhook;
  const holder = leaseHolder();
  const poster = httpPoster(egressPolicy(hook.allowed_hosts), hook.timeout);
  const timing: DeliveryTiming = { ...DEFAULT_DELIVERY, ...options.timing, capacity: audit.buffer.capacity, maxBackoffMs: hook.max_backoff_duration };
  let holds = 0;
  const paused = () => holds > 0;
  const loops = configuredSinks(audit, poster).map((sink) => new SinkDelivery(sink, { store, clock, logger, metrics, holder, timing, paused }));
  const names = loops.map((l) => l.name);
  await warnAboutOrphans(store, names, logger);
  for (const loop of loops) loop.start();
  const retention = new RetentionJob({ store, clock, logger, metrics, holder, retentionMs: audit.retention, intervalMs: options.retentionIntervalMs, paused });
  retention.start(options.retentionFirstRunMs);
  return {
    sinks: names,
    retention,
    wake: () => {
      for (const loop of loops) loop.wake();
    },
    hold() {
      holds++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--holds === 0) for (const loop of loops) loop.resume();
      };
    },
    async close() {
      await Promise.all([...loops.map((l) => l.close()), retention.stop()]);
      await poster.close();
    },
  };
}

/** Events still owed to sinks no longer configured wait (a sink enabled again gets them) until retention: said once at start. */
async function warnAboutOrphans(store: AuditStore, configured: readonly string[], logger: Logger): Promise<void> {
  try {
    for (const row of await store.auditBacklog()) {
      if (configured.includes(row.sink) || row.count === 0) continue;
      logger.warn({ sink: sinkLabel(row.sink), events: row.count }, 'audit events wait for a sink that is no longer configured: it gets them if enabled again; otherwise audit.retention deletes them');
    }
  } catch (err) {
    logger.debug({ err }, 'the audit outbox backlog could not be read at start');
  }
}
