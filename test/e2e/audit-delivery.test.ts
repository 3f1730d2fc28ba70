import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditReceiver } from '../support/audit-receiver';
import { freePort, pennon, serve, tempDir } from '../support/cli';
import { sampleValue } from '../support/scrape';
import { ApiClient, expectStatus } from '../support/server';
import { until } from '../support/wait';

/**
 * Audit delivery with the real executable: an event written while the receiver is down survives
 * `kill -9` of the server and is delivered by the next one; two `serve` processes on one
 * database deliver each event once (the sink's lease); a cluster of workers delivers from its
 * leader and reports the outbox once in its combined scrape.
 */

const SECRET = 'e2e-audit-secret';

describe('audit delivery, the executable', () => {
  let receiver: AuditReceiver;
  let dir: string;
  const running: ResultPromise[] = [];

  beforeEach(async () => {
    receiver = await AuditReceiver.start(SECRET);
    dir = tempDir('pennon-audit-e2e-');
  });
  afterEach(async () => {
    for (const child of running.splice(0)) {
      child.kill('SIGTERM');
      await child;
    }
    await receiver.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (workers: number): Record<string, string> => ({
    PENNON_DB_URL: `file:${join(dir, 'pennon.db')}`,
    PENNON_SERVER_WORKERS: String(workers),
    PENNON_AUDIT_SINKS_WEBHOOK_ENABLED: 'true',
    PENNON_AUDIT_SINKS_WEBHOOK_URL: receiver.url(),
    PENNON_AUDIT_SINKS_WEBHOOK_SIGNING_SECRET: SECRET,
    PENNON_AUDIT_SINKS_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    PENNON_AUDIT_SINKS_WEBHOOK_MAX_BACKOFF_DURATION: '500ms',
  });

  async function start(workers: number): Promise<{ api: ApiClient; process: ResultPromise }> {
    const port = await freePort();
    const { process } = await serve(env(workers), port);
    running.push(process);
    return { api: new ApiClient(`http://127.0.0.1:${port}`), process };
  }

  it('config validate names a template that does not parse and a URL egress refuses; serve refuses to start with the same words', async () => {
    const file = join(dir, 'bad.yml');
    writeFileSync(
      file,
      [
        'audit:',
        '  sinks:',
        '    webhook:',
        '      enabled: true',
        '      templates:',
        `        - url: ${receiver.url('/t')}`,
        '          body: \'{"flags": [{{ range .Payload }}x{{ end }}]}\'',
        '        - url: http://localhost:9/hook',
        '          body: \'{"id": {{ toJson .id }}}\'',
        '      allowed_hosts: [127.0.0.1]',
        '',
      ].join('\n'),
    );
    const validate = await pennon(['config', 'validate', file]);
    expect(validate.exitCode).toBe(1);
    expect(validate.stderr).toContain('audit.sinks.webhook.templates.0.body: line 1, column 12: {{ range }} is not supported');
    expect(validate.stderr).toContain('audit.sinks.webhook.templates.1.url: localhost is a loopback name: refused; list "localhost" in audit.sinks.webhook.allowed_hosts to allow it');
    const served = await pennon(['--config', file, 'serve'], { env: { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}`, PENNON_SERVER_WORKERS: '1', PENNON_SERVER_HTTP_PORT: String(await freePort()) } });
    expect(served.exitCode).toBe(1);
    expect(served.stderr).toContain('audit.sinks.webhook.templates.1.url: localhost is a loopback name: refused');
  });

  it('an event written while the receiver is down survives kill -9 and is delivered after the restart', async () => {
    await receiver.down();
    const first = await start(1);
    expectStatus(await first.api.post('/api/v1/namespaces/default/flags', { key: 'survivor', name: 'Survivor' }), 200);
    first.process.kill('SIGKILL');
    const { signal } = await first.process;
    expect(signal).toBe('SIGKILL');
    running.splice(running.indexOf(first.process), 1);
    expect(receiver.received).toEqual([]);

    await receiver.up();
    await start(1);
    // The killed process's lease lapses (10 s) before the new one may deliver.
    const [delivery] = await receiver.waitFor(1, '/hook', 25_000);
    expect(delivery.signed).toBe(true);
    expect(delivery.json).toMatchObject({ type: 'flag', action: 'created', key: 'survivor', version: '0.2' });
    expect(delivery.headers['x-pennon-delivery-id']).toBe(delivery.json.id);
  }, 60_000);

  it('two serve processes on one database deliver each event once', async () => {
    const a = await start(1);
    const b = await start(1);
    for (let i = 0; i < 10; i++) expectStatus(await (i % 2 ? b : a).api.post('/api/v1/namespaces/default/flags', { key: `f${i}`, name: 'F' }), 200);
    await receiver.waitFor(10, '/hook', 15_000);
    const scrape = async (api: ApiClient) => (await api.get('/metrics')).text;
    // Delivered means acknowledged: both see an empty outbox, and between them ten successes.
    await until(async () => sampleValue(await scrape(a.api), 'service_audit_outbox_backlog', { sink: 'webhook' }) === 0, 'the outbox is empty');
    const [ta, tb] = await Promise.all([scrape(a.api), scrape(b.api)]);
    const delivered = (t: string) => sampleValue(t, 'service_audit_deliveries_total', { sink: 'webhook', outcome: 'success' });
    expect(delivered(ta) + delivered(tb)).toBe(10);
    expect(sampleValue(ta, 'service_audit_events_written_total', {}) + sampleValue(tb, 'service_audit_events_written_total', {})).toBe(10);
    const ids = receiver.at().map((r) => r.json.id);
    expect(new Set(ids).size).toBe(10);
    expect(ids).toHaveLength(10);
    expect(receiver.at().map((r) => r.json.key)).toEqual(Array.from({ length: 10 }, (_, i) => `f${i}`));
  }, 60_000);

  it('a cluster of workers delivers from its leader and reports the outbox once', async () => {
    const { api } = await start(2);
    for (let i = 0; i < 6; i++) expectStatus(await api.post('/api/v1/namespaces/default/flags', { key: `w${i}`, name: 'W' }), 200);
    await receiver.waitFor(6, '/hook', 15_000);
    const backlogLines = async () => (await api.get('/metrics')).text.split('\n').filter((l) => l.startsWith('service_audit_outbox_backlog{'));
    await until(async () => (await backlogLines()).some((l) => l.endsWith(' 0')), 'the outbox is empty');
    // A gauge is kept per worker in a combined scrape: the outbox is the leader's alone to report.
    expect(await backlogLines()).toEqual(['service_audit_outbox_backlog{worker="0",sink="webhook"} 0']);
    const text = (await api.get('/metrics')).text;
    expect(sampleValue(text, 'service_audit_events_written_total', {})).toBe(6);
    expect(sampleValue(text, 'service_audit_deliveries_total', { sink: 'webhook', outcome: 'success' })).toBe(6);
    expect(new Set(receiver.at().map((r) => r.json.id)).size).toBe(6);
  }, 60_000);
});
