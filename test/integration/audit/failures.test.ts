import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditReceiver, ok } from '../../support/audit-receiver';
import { recordingLogger, startAuditServer, type AuditTestServer } from '../../support/audit-server';
import { expectStatus } from '../../support/server';
import { until } from '../../support/wait';

/**
 * Receivers that do not take a delivery: a redirect is a failure, never followed (its target
 * receives nothing) and retried; a receiver that never answers is given up on after
 * audit.sinks.webhook.timeout, per attempt; and neither holds a write up.
 */

describe('audit deliveries a receiver does not take', () => {
  let receiver: AuditReceiver;
  let server: AuditTestServer;
  let log: Awaited<ReturnType<typeof recordingLogger>>;
  /** Requests to /slow, held open and never answered until the test ends. */
  const held: (() => void)[] = [];

  beforeAll(async () => {
    receiver = await AuditReceiver.start();
    receiver.answer = (res, r) => {
      if (r.path === '/moved') return res.writeHead(302, { location: receiver.url('/target') }).end();
      if (r.path === '/slow') return void held.push(() => res.destroy());
      ok(res, r);
    };
    log = await recordingLogger();
    server = await startAuditServer(
      {
        sinks: {
          webhook: {
            enabled: true,
            templates: [
              { url: receiver.url('/moved'), body: '{"id": {{ toJson .id }}}' },
              { url: receiver.url('/slow'), body: '{"id": {{ toJson .id }}}' },
            ],
            max_backoff_duration: '500ms',
            timeout: '3s',
            allowed_hosts: ['127.0.0.1'],
          },
        },
      },
      {},
      { logger: log.logger },
    );
  });
  afterAll(async () => {
    for (const release of held) release();
    await server?.stop();
    await receiver?.close();
  });

  it('neither a redirect nor a receiver that never answers holds a write up', async () => {
    expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key: 'f0', name: 'F' }), 200);
    // An attempt to /slow is open now, for the whole 3 s timeout.
    await until(() => receiver.at('/slow').length === 1, 'an attempt reached the silent receiver');
    for (let i = 1; i < 5; i++) {
      const started = performance.now();
      expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key: `f${i}`, name: 'F' }), 200);
      expect(performance.now() - started).toBeLessThan(1500);
    }
    // Every write answered while that attempt was still waiting for its answer.
    expect(receiver.at('/slow')).toHaveLength(1);
    expect(held).toHaveLength(1);
  });

  it('a 302 is a failure: not followed, the same event retried with backoff', async () => {
    await until(() => receiver.at('/moved').length >= 3, 'the redirected delivery was tried three times');
    expect(receiver.at('/target')).toEqual([]);
    const ids = new Set(receiver.at('/moved').map((r) => r.json.id));
    expect(ids.size).toBe(1); // the head, retried; the others wait behind it
    const [pending] = await server.service.store.pendingAuditDeliveries(`template:${receiver.url('/moved')}`, 10);
    expect(pending.attempts).toBeGreaterThanOrEqual(2);
    const warning = log.lines.find((l) => l.msg.startsWith('an audit event could not be delivered') && String(l.error).includes('302'));
    expect(warning?.error).toBe(`answered 302 (to ${receiver.url('/target')}): redirects are not followed; configure the URL it points to`);
    expect(warning?.sink).toBe('template:127.0.0.1:' + receiver.port);
  });

  it('an attempt without an answer ends at the timeout, and is retried', async () => {
    await until(() => receiver.at('/slow').length >= 2, 'the silent receiver was tried twice', 15_000);
    const warning = log.lines.find((l) => l.msg.startsWith('an audit event could not be delivered') && String(l.error).includes('no answer'));
    expect(warning?.error).toBe('no answer within 3000 ms (audit.sinks.webhook.timeout)');
    // The same event both times: the others wait behind it.
    expect(new Set(receiver.at('/slow').map((r) => r.json.id)).size).toBe(1);
  });
});
