import type { AuditAction, AuditActor, AuditEvent, AuditQuery, AuditSource, AuditType, StandaloneAuditEvent } from '../../../core';
import type { AuditBacklog, AuditDelivery } from '../../types';
import { int, type AuditEventsTable } from '../tables';
import type { Tx } from '../transaction';
import { read, write } from './kinds';

/** The audit trail's reads, its retention, and the outbox its sinks are delivered from. */

const parsed = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

function toEvent(r: AuditEventsTable): AuditEvent {
  return {
    id: r.id,
    type: r.type as AuditType,
    action: r.action as AuditAction,
    namespace: r.namespace_key,
    key: r.resource_key,
    objectId: r.object_id,
    actor: JSON.parse(r.actor) as AuditActor,
    source: r.source as AuditSource,
    requestId: r.request_id,
    payload: parsed(r.payload),
    before: parsed(r.previous),
    timestamp: int(r.created_at),
  };
}

/** Newest first, filtered; `limit` events at most (ask for one more to learn whether there are more). */
export const listAuditEvents = read(async function listAuditEvents(tx: Tx, q: AuditQuery): Promise<AuditEvent[]> {
  let query = tx.db.selectFrom('audit_events').selectAll();
  if (q.namespace !== null) query = query.where('namespace_key', '=', q.namespace);
  if (q.types?.length) query = query.where('type', 'in', q.types);
  if (q.actions?.length) query = query.where('action', 'in', q.actions);
  if (q.key !== undefined) query = query.where('resource_key', '=', q.key);
  if (q.actor !== undefined) {
    const actor = q.actor;
    query = query.where((eb) => eb.or([eb('actor_id', '=', actor), eb('actor_name', '=', actor)]));
  }
  if (q.since !== undefined) query = query.where('created_at', '>=', q.since);
  if (q.until !== undefined) query = query.where('created_at', '<', q.until);
  if (q.before !== undefined) query = query.where('id', '<', q.before);
  const rows = await query.orderBy('id', 'desc').limit(q.limit).execute();
  return rows.map(toEvent);
});

/**
 * An event that is the write itself (a denied request): nothing to change here — the audit
 * trail's entry for this write (audit-log.ts AUDITED) records it on the transaction, which writes
 * it and its outbox rows before committing, as it does every write's events.
 */
export const recordAuditEvent = write(async function recordAuditEvent(_tx: Tx, _event: StandaloneAuditEvent): Promise<void> {});

/** One event by its id (a delivery's). */
export const getAuditEvents = read(async function getAuditEvents(tx: Tx, ids: string[]): Promise<AuditEvent[]> {
  if (ids.length === 0) return [];
  const rows = await tx.db.selectFrom('audit_events').selectAll().where('id', 'in', ids).orderBy('id').execute();
  return rows.map(toEvent);
});

/**
 * Deletes at most `limit` events older than `before` (epoch µs), and whatever of them still waits
 * in the outbox (a sink down longer than the retention loses those, counted by the caller);
 * one short transaction. Returns how many events went.
 */
export const deleteAuditEventsBefore = write(async function deleteAuditEventsBefore(tx: Tx, before: number, limit: number): Promise<{ events: number; undelivered: number }> {
  const old = await tx.db.selectFrom('audit_events').select('id').where('created_at', '<', before).orderBy('created_at').limit(limit).execute();
  if (old.length === 0) return { events: 0, undelivered: 0 };
  const ids = old.map((r) => r.id);
  const undelivered = await tx.db.deleteFrom('audit_outbox').where('event_id', 'in', ids).executeTakeFirst();
  await tx.db.deleteFrom('audit_events').where('id', 'in', ids).execute();
  return { events: ids.length, undelivered: Number(undelivered.numDeletedRows) };
});

/**
 * Takes the named lease for `holder` until `until` (epoch µs), or renews it; false while another
 * holder's lease runs. One instance at a time delivers a sink (in order) or runs the retention job.
 */
export const acquireAuditLease = write(async function acquireAuditLease(tx: Tx, name: string, holder: string, now: number, until: number): Promise<boolean> {
  const updated = await tx.db
    .updateTable('audit_leases')
    .set({ holder, expires_at: until })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<', now)]))
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return true;
  const existing = await tx.db.selectFrom('audit_leases').select('holder').where('name', '=', name).executeTakeFirst();
  if (existing) return false;
  await tx.db.insertInto('audit_leases').values({ name, holder, expires_at: until }).execute();
  return true;
});

/** Gives the lease up (at shutdown), so another instance takes over at once. */
export const releaseAuditLease = write(async function releaseAuditLease(tx: Tx, name: string, holder: string): Promise<void> {
  await tx.db.deleteFrom('audit_leases').where('name', '=', name).where('holder', '=', holder).execute();
});

/**
 * The sink's first `limit` waiting deliveries, oldest event first, due or not: the deliverer
 * stops at the first one not yet due, so a sink receives events in the order they were written.
 */
export const pendingAuditDeliveries = read(async function pendingAuditDeliveries(tx: Tx, sink: string, limit: number): Promise<AuditDelivery[]> {
  const rows = await tx.db
    .selectFrom('audit_outbox')
    .innerJoin('audit_events', 'audit_events.id', 'audit_outbox.event_id')
    .selectAll('audit_events')
    .select(['audit_outbox.attempts', 'audit_outbox.next_attempt_at'])
    .where('audit_outbox.sink', '=', sink)
    .orderBy('audit_outbox.event_id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ event: toEvent(r), attempts: int(r.attempts), nextAttemptAt: int(r.next_attempt_at) }));
});

/** The sink has these events: they leave its outbox. */
export const acknowledgeAuditDeliveries = write(async function acknowledgeAuditDeliveries(tx: Tx, sink: string, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await tx.db.deleteFrom('audit_outbox').where('sink', '=', sink).where('event_id', 'in', eventIds).execute();
});

/** A failed attempt: tried again at `nextAttemptAt` (epoch µs). */
export const deferAuditDelivery = write(async function deferAuditDelivery(tx: Tx, sink: string, eventId: string, attempts: number, nextAttemptAt: number, error: string): Promise<void> {
  await tx.db
    .updateTable('audit_outbox')
    .set({ attempts, next_attempt_at: nextAttemptAt, last_error: error.slice(0, 1000) })
    .where('sink', '=', sink)
    .where('event_id', '=', eventId)
    .execute();
});

/** Per sink: events waiting, and when the oldest was written (epoch µs). */
export const auditBacklog = read(async function auditBacklog(tx: Tx): Promise<AuditBacklog[]> {
  const rows = await tx.db
    .selectFrom('audit_outbox')
    .innerJoin('audit_events', 'audit_events.id', 'audit_outbox.event_id')
    .select((eb) => ['audit_outbox.sink', eb.fn.countAll<number>().as('count'), eb.fn.min('audit_events.created_at').as('oldest')])
    .groupBy('audit_outbox.sink')
    .execute();
  return rows.map((r) => ({ sink: r.sink, count: Number(r.count), oldest: r.oldest === null ? null : int(r.oldest as number | string) }));
});
