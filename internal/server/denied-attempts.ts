import type { Logger } from 'pino';
import type { Role } from '../config';
import type { AuditOrigin, Clock } from '../core';
import type { AuditStore, Store } from '../storage';
import type { Metrics } from '../telemetry';
import { RequestErrorLog } from './error-log';

/**
 * What becomes of a request refused for want of a role (issue 21): it is counted
 * (`<namespace>_authorization_denied_total{operation, role}`), logged at warn — the first of a
 * kind (operation and role needed) per 10 s in full, then a line counting the others, as
 * error-log.ts does for failures — and recorded in the audit trail as an `authorization` event,
 * action `denied`, filed under the operation, in the namespace refused.
 *
 * The trail must not become a way to fill the database: an authenticated caller can send
 * refused requests as fast as it likes, naming any namespace. So an event is written at most once
 * a minute per actor, operation and namespace (the keys remembered are bounded), and at most
 * `maxEventsPerMinute` a minute in all; what is left out is still counted and logged. Each event
 * is one short write transaction of its own (`AuditStore.recordAuditEvent`), not awaited by the
 * refusal; a failure to write it is logged, never the caller's problem.
 */

export interface DeniedAttempt {
  /** Who asked, through which door, which request (as its writes would be recorded). */
  origin: AuditOrigin;
  /** The route table's operation (`CreateFlag`), or a flagd method (`flagd.evaluation.v1.Service/ResolveBoolean`). */
  operation: string;
  /** The namespace refused; null: the operation names none, and needed the role on every namespace. */
  namespace: string | null;
  needed: Role;
  /** The role held there (null: none). */
  held: Role | null;
}

export interface DeniedAttemptsOptions {
  logger: Logger;
  clock: Clock;
  metrics: Metrics | null;
  /** Where the events go (the database's trail); null: none are recorded. */
  store: (Pick<Store, 'as'> & Pick<AuditStore, 'recordAuditEvent'>) | null;
  /** One event per actor, operation and namespace per this (default a minute). */
  windowMs?: number;
  /** Events recorded per window in all (default 120: two a second). */
  maxEventsPerMinute?: number;
  /** Actor, operation and namespace triples remembered (default 10,000). */
  maxKeys?: number;
}

const MINUTE = 60_000;

export class DeniedAttempts {
  private readonly log: RequestErrorLog;
  /** Actor|operation|namespace → when its last event was recorded (epoch ms). */
  private readonly recorded = new Map<string, number>();
  private readonly windowMs: number;
  private readonly maxEvents: number;
  private readonly maxKeys: number;
  private windowStarted = 0;
  private eventsInWindow = 0;
  /** Writes under way: tests (and shutdown) can wait for them. */
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: DeniedAttemptsOptions) {
    this.log = new RequestErrorLog(options.logger, { now: this.now, level: 'warn' });
    this.windowMs = options.windowMs ?? MINUTE;
    this.maxEvents = options.maxEventsPerMinute ?? 120;
    this.maxKeys = options.maxKeys ?? 10_000;
  }

  private readonly now = () => this.options.clock.nowMicros() / 1000;

  record(attempt: DeniedAttempt): void {
    const { origin, operation, namespace, needed, held } = attempt;
    this.options.metrics?.authorizationDenied(operation, held ?? 'none');
    const where = namespace === null ? 'every namespace' : `namespace "${namespace}"`;
    this.log.error(
      `denied|${operation}|${needed}`,
      { actor: origin.actor, operation, namespace, needed, held, reqId: origin.requestId ?? undefined },
      `permission denied: ${operation} needs the ${needed} role on ${where}`,
    );
    if (this.options.store && this.admits(`${origin.actor.authentication}|${origin.actor.id ?? ''}|${operation}|${namespace ?? ''}`)) this.write(attempt);
  }

  /** Waits for the events being written (tests; a stop that wants them in). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  close(): void {
    this.log.close();
  }

  /** Whether this attempt gets an event: its key's first in the window, within the window's budget. */
  private admits(key: string): boolean {
    const now = this.now();
    if (now - this.windowStarted >= this.windowMs) {
      this.windowStarted = now;
      this.eventsInWindow = 0;
    }
    const last = this.recorded.get(key);
    if (last !== undefined && now - last < this.windowMs) return false;
    if (this.eventsInWindow >= this.maxEvents) return false;
    if (last === undefined && this.recorded.size >= this.maxKeys) {
      for (const [k, at] of this.recorded) if (now - at >= this.windowMs) this.recorded.delete(k);
      if (this.recorded.size >= this.maxKeys) return false;
    }
    this.recorded.delete(key); // re-inserted last: the map stays in the order keys were recorded
    this.recorded.set(key, now);
    this.eventsInWindow++;
    return true;
  }

  private write({ origin, operation, namespace, needed, held }: DeniedAttempt): void {
    const store = this.options.store!;
    const written = store
      .as(origin)
      .recordAuditEvent({ type: 'authorization', action: 'denied', namespace: namespace ?? '', key: operation, payload: { operation, namespace, needed, held } })
      .catch((err: unknown) => this.options.logger.warn({ err, operation }, 'could not record a denied request in the audit trail'))
      .finally(() => this.pending.delete(written));
    this.pending.add(written);
  }
}
