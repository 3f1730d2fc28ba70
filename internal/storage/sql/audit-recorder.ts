import { auditEventSelected, newId, SYSTEM_ORIGIN, type AuditAction, type AuditEvent, type AuditOrigin, type AuditType, type Authentication, type Clock } from '../../core';
import type { Db } from './tables';

/**
 * What one write transaction records for the audit trail (its events, in order), and how they are
 * written with it, beside an outbox row for each sink that takes each (transaction.ts). Which
 * write records what: audit-log.ts.
 */

/** A sink that events wait for in the outbox, and which of them it takes (`audit.events`). */
export interface AuditSinkSelection {
  name: string;
  events: readonly string[];
}

/** The events one transaction records, in order; written before it commits. */
export class AuditRecorder {
  readonly events: AuditEvent[] = [];
  /** An import's summary per namespace: several batches in one transaction are one import. */
  private readonly imports = new Map<string, Record<string, number>>();

  constructor(
    private readonly clock: Clock,
    readonly origin: AuditOrigin = SYSTEM_ORIGIN,
  ) {}

  record(type: AuditType, action: AuditAction, at: { ns: string; key: string; objectId?: string | null }, before: unknown, payload: unknown): void {
    const { actor, source, requestId } = this.origin;
    this.events.push({
      id: newId(),
      type,
      action,
      namespace: at.ns,
      key: at.key,
      objectId: at.objectId ?? null,
      actor,
      source,
      requestId: requestId ?? null,
      payload: payload ?? null,
      before: before ?? null,
      timestamp: this.clock.nowMicros(),
    });
  }

  /** A token deleted: kept without its hash. */
  tokenDeleted(token: Authentication): void {
    this.record('token', 'deleted', { ns: tokenNamespace(token), key: token.id, objectId: token.id }, tokenRecord(token), null);
  }

  /** An import's counts, added to its namespace's one summary event. */
  imported(ns: string, counts: Record<string, number>): void {
    let summary = this.imports.get(ns);
    if (!summary) {
      this.imports.set(ns, (summary = {}));
      this.record('import', 'created', { ns, key: '' }, null, summary);
    }
    for (const [name, n] of Object.entries(counts)) summary[name] = (summary[name] ?? 0) + n;
  }
}

/** A token as the trail keeps it: never its hash. */
export function tokenRecord(a: Authentication | null): unknown {
  if (!a) return null;
  const { hashedToken: _hash, ...rest } = a;
  return rest;
}

export function tokenNamespace(a: Authentication | null): string {
  return a?.metadata['io.flipt.auth.token.namespace'] ?? '';
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** Rows per INSERT: well inside every dialect's bound-parameter limit (SQLite's 32,766 at 14 a row). */
const ROWS_PER_INSERT = 500;

/** Writes a transaction's events, and an outbox row for each sink that takes each, in that transaction. */
export async function writeAuditEvents(db: Db, events: readonly AuditEvent[], sinks: readonly AuditSinkSelection[]): Promise<void> {
  for (let i = 0; i < events.length; i += ROWS_PER_INSERT) {
    const slice = events.slice(i, i + ROWS_PER_INSERT);
    await db
      .insertInto('audit_events')
      .values(
        slice.map((e) => ({
          id: e.id,
          namespace_key: e.namespace,
          type: e.type,
          action: e.action,
          resource_key: e.key,
          object_id: e.objectId,
          actor: JSON.stringify(e.actor),
          actor_id: e.actor.id ?? '',
          actor_name: e.actor.name ?? e.actor.email ?? '',
          source: e.source,
          request_id: e.requestId,
          payload: json(e.payload),
          previous: json(e.before),
          created_at: e.timestamp,
        })),
      )
      .execute();
    const outbox = sinks.flatMap((sink) =>
      slice.filter((e) => auditEventSelected(sink.events, e.type, e.action)).map((e) => ({ sink: sink.name, event_id: e.id, attempts: 0, next_attempt_at: 0, last_error: null })),
    );
    for (let j = 0; j < outbox.length; j += ROWS_PER_INSERT) await db.insertInto('audit_outbox').values(outbox.slice(j, j + ROWS_PER_INSERT)).execute();
  }
}
