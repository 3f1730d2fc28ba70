import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAuditDelivery, type AuditDelivery } from '../../../internal/audit';
import { RetentionJob } from '../../../internal/audit/retention';
import { loadConfig, type Config } from '../../../internal/config';
import { systemClock, type AuditOrigin } from '../../../internal/core';
import { compose, type DatabaseServices } from '../../../internal/service/compose';
import { Metrics, silentLogger } from '../../../internal/telemetry';
import { AuditReceiver } from '../../support/audit-receiver';
import { backends, type CreatedDatabase } from '../../support/backends';
import { recordingLogger } from '../../support/audit-server';
import { ManualClock } from '../../support/clock';
import { sampleValue } from '../../support/scrape';
import { until } from '../../support/wait';
import { flagInput, flagUpdate } from '../../support/store';

/**
 * The outbox's delivery on every database: two instances on one database (each its own
 * connection and lease holder) deliver each event once, in the order written, and one takes over
 * when the other leaves; the retention job deletes what is past audit.retention in batches, once
 * per service, counting the deliveries it drops.
 */

const ALICE: AuditOrigin = { actor: { authentication: 'token', id: 'tok-a', name: 'alice' }, source: 'api', requestId: null };
/** Short leases and polls: the mechanism, not the production timing. */
const FAST = { pollMs: 100, baseBackoffMs: 50, lease: { ttlMs: 1500, renewMs: 250 } };

describe.each(backends())('audit outbox delivery on $name', (backend) => {
  let db: CreatedDatabase;
  let receiver: AuditReceiver;
  const opened: DatabaseServices[] = [];
  const deliveries: AuditDelivery[] = [];

  beforeEach(async () => {
    db = await backend.create();
    receiver = await AuditReceiver.start('outbox-secret');
  });
  afterEach(async () => {
    await Promise.all(deliveries.splice(0).map((d) => d.close()));
    await Promise.all(opened.splice(0).map((o) => o.close()));
    await receiver.close();
    await db.cleanup();
  });

  function configFor(env: Record<string, string> = {}): Config {
    return loadConfig({
      env: {
        PENNON_DB_URL: db.url,
        PENNON_AUDIT_BUFFER_CAPACITY: '5',
        PENNON_AUDIT_SINKS_WEBHOOK_ENABLED: 'true',
        PENNON_AUDIT_SINKS_WEBHOOK_URL: receiver.url(),
        PENNON_AUDIT_SINKS_WEBHOOK_SIGNING_SECRET: 'outbox-secret',
        PENNON_AUDIT_SINKS_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        PENNON_AUDIT_SINKS_WEBHOOK_MAX_BACKOFF_DURATION: '200ms',
        ...env,
      },
    }).config;
  }

  /** An instance: its own connection to the database, and (unless told) its own deliverer. */
  async function instance(first: boolean, deliver = true, clock?: ManualClock) {
    const config = configFor();
    const services = await compose(config, { only: 'database', database: first ? 'prepared' : 'existing', clock });
    opened.push(services);
    const store = services.store.as(ALICE);
    if (!deliver) return { store, delivery: null };
    const delivery = await startAuditDelivery({ audit: config.audit, store: services.store, clock: systemClock(), logger: silentLogger(), metrics: null, timing: FAST, retentionFirstRunMs: 3_600_000 });
    deliveries.push(delivery);
    services.store.onAudited(() => delivery.wake());
    return { store, delivery };
  }

  // SQLite's driver waits for another connection's lock synchronously: two instances in one
  // process would wait on each other. test/e2e/audit-delivery.test.ts runs two processes on one file.
  it.skipIf(backend.name === 'sqlite')('two instances on one database deliver each event once, in the order written; one takes over when the other leaves', async () => {
    const a = await instance(true);
    const b = await instance(false);
    for (let i = 0; i < 12; i++) {
      const store = i % 2 === 0 ? a.store : b.store;
      await store.createFlag('default', flagInput(`f${i}`));
      await store.updateFlag('default', `f${i}`, flagUpdate({ enabled: true }));
    }
    const written = (await a.store.listAuditEvents({ namespace: null, limit: 1000 })).reverse();
    expect(written).toHaveLength(24);
    await receiver.waitFor(written.length);
    expect(receiver.at().map((r) => r.json.id)).toEqual(written.map((e) => e.id));
    expect(receiver.at().every((r) => r.signed)).toBe(true);

    // A leaves (its lease released): B delivers what comes next, still once each.
    await a.delivery!.close();
    deliveries.splice(deliveries.indexOf(a.delivery!), 1);
    for (let i = 0; i < 4; i++) await a.store.deleteFlag('default', `f${i}`);
    const after = (await b.store.listAuditEvents({ namespace: null, limit: 1000 })).reverse();
    await receiver.waitFor(after.length);
    expect(receiver.at().map((r) => r.json.id)).toEqual(after.map((e) => e.id));
    // Acknowledged once received: the outbox empties.
    await until(async () => (await b.store.auditBacklog()).length === 0, 'the outbox is empty');
  });

  it('held (an import thread writing a SQLite file), the delivery writes nothing — no lease renewal, no delivery — and catches up at once when released', async () => {
    const a = await instance(true);
    await a.store.createFlag('default', flagInput('before'));
    await receiver.waitFor(1);
    const leaseFree = async () => {
      const now = Date.now() * 1000;
      // Taking it for no time at all says whether another process holds it, and leaves it free.
      const taken = await a.store.acquireAuditLease('audit-sink:webhook', 'observer', now, now);
      if (taken) await a.store.releaseAuditLease('audit-sink:webhook', 'observer');
      return taken;
    };
    expect(await leaseFree()).toBe(false);
    const release = a.delivery!.hold();
    await a.store.createFlag('default', flagInput('during'));
    // Well past the lease's 1.5 s: not renewed while held, it lapses (and nothing is delivered).
    await until(leaseFree, 'the held lease lapsed', 5000);
    expect(receiver.at().map((r) => r.json.key)).toEqual(['before']);
    release();
    const [, during] = await receiver.waitFor(2, '/hook', 2000);
    expect(during.json.key).toBe('during');
  });

  it('retention deletes past audit.retention in batches, once per service, and counts deliveries it drops', async () => {
    // No deliverer: the events stay owed to the webhook sink, as with a sink down for months.
    const clock = new ManualClock();
    const { store } = await instance(true, false, clock);
    for (let i = 0; i < 7; i++) await store.createFlag('default', flagInput(`old${i}`));
    const metrics = new Metrics('t', { defaultMetrics: false });
    const log = await recordingLogger();
    const retentionMs = configFor().audit.retention;
    const job = new RetentionJob({ store, clock, logger: log.logger, metrics: metrics.audit, holder: 'holder-1', retentionMs, batch: 3 });
    const other = new RetentionJob({ store, clock, logger: silentLogger(), metrics: null, holder: 'holder-2', retentionMs });

    expect(await job.runOnce()).toEqual({ ran: true, events: 0, undelivered: 0 });
    // Its lease runs for two intervals: the other process's run does nothing meanwhile.
    expect(await other.runOnce()).toEqual({ ran: false, events: 0, undelivered: 0 });
    clock.advance(retentionMs + 1000);
    await store.createFlag('default', flagInput('recent')); // written after the move: inside the retention
    expect(await job.runOnce()).toEqual({ ran: true, events: 7, undelivered: 7 });

    const left = await store.listAuditEvents({ namespace: null, limit: 100 });
    expect(left.map((e) => e.key)).toEqual(['recent']);
    expect(await store.auditBacklog()).toEqual([{ sink: 'webhook', count: 1, oldest: expect.any(Number) }]);
    const text = await metrics.text();
    expect(sampleValue(text, 't_audit_events_deleted_total', {})).toBe(7);
    expect(sampleValue(text, 't_audit_deliveries_expired_total', {})).toBe(7);
    expect(log.lines.find((l) => l.level === 40)?.msg).toMatch(/^audit events deleted by retention before a sink had them/);

    // Released at stop: another process runs it at once.
    await job.stop();
    expect((await other.runOnce()).ran).toBe(true);
    await other.stop();
  });
});
