import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditReceiver } from '../../support/audit-receiver';
import { startAuditServer, type AuditTestServer } from '../../support/audit-server';
import { FaultProxy } from '../../support/fault-proxy';
import { expectStatus } from '../../support/server';
import { until } from '../../support/wait';

/**
 * The receiver unreachable for 30 s (a fault proxy in front of it refuses connections), then back:
 * every event written meanwhile arrives — each object's in the order written — duplicates (if
 * any) carry the id they repeat, writes were never held up, and what waited drains at once.
 */

const SECRET = 'outage-secret';
const OUTAGE_MS = 30_000;
const KEYS = ['alpha', 'beta', 'gamma'];

describe('audit delivery across a 30 s receiver outage', () => {
  let receiver: AuditReceiver;
  let proxy: FaultProxy;
  let server: AuditTestServer;

  beforeAll(async () => {
    receiver = await AuditReceiver.start(SECRET);
    proxy = await FaultProxy.start({ host: '127.0.0.1', port: receiver.port });
    server = await startAuditServer({
      buffer: { capacity: 5 },
      sinks: { webhook: { enabled: true, url: `http://127.0.0.1:${proxy.port}/hook`, signing_secret: SECRET, max_backoff_duration: '2s', allowed_hosts: ['127.0.0.1'] } },
    });
    for (const key of KEYS) expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key, name: key }), 200);
    await receiver.waitFor(KEYS.length);
  });
  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await receiver?.close();
  });

  it('every event written during the outage arrives afterwards, in order per object, duplicates recognisable by id', async () => {
    const before = receiver.at().length;
    await proxy.set('refuse');
    const started = performance.now();
    const slowestWriteMs = { value: 0 };
    let round = 0;
    // A change to each flag every 2 s while the receiver is unreachable.
    while (performance.now() - started < OUTAGE_MS) {
      for (const key of KEYS) {
        const t = performance.now();
        expectStatus(await server.api.put(`/api/v1/namespaces/default/flags/${key}`, { name: `${key} ${round}`, enabled: round % 2 === 0 }), 200);
        slowestWriteMs.value = Math.max(slowestWriteMs.value, performance.now() - t);
      }
      round++;
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    expect(receiver.at().length).toBe(before); // nothing got through
    expect(slowestWriteMs.value).toBeLessThan(1000);

    await proxy.set('pass');
    const written = expectStatus(await server.api.get('/api/v1/audit/events?limit=1000'), 200).events.reverse();
    expect(written.length).toBe(KEYS.length * (round + 1));
    const ids = () => new Set(receiver.at().map((r) => r.json.id));
    // Bounded by the longest backoff (2 s) and the drain, not by the outage's length.
    await until(() => ids().size >= written.length, `every event written during the outage arrived (${written.length})`, 10_000);
    const arrived = receiver.at();
    for (const r of arrived) {
      expect(r.signed).toBe(true);
      expect(r.headers['x-pennon-delivery-id']).toBe(r.json.id);
    }
    expect([...ids()].sort()).toEqual(written.map((e: any) => e.id).sort());
    for (const key of KEYS) {
      const firstArrivals = [...new Set(arrived.filter((r) => r.json.key === key).map((r) => r.json.id))];
      expect(firstArrivals, `the order of ${key}'s events`).toEqual(written.filter((e: any) => e.key === key).map((e: any) => e.id));
      // The same order read from the payloads: the names the writes gave, one round after another.
      const once = new Map(arrived.filter((r) => r.json.key === key && r.json.action === 'updated').map((r) => [r.json.id, r.json.payload.name]));
      expect([...once.values()], key).toEqual(Array.from({ length: round }, (_, i) => `${key} ${i}`));
    }
  }, 55_000);
});
