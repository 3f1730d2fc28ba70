import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedKind } from '../../../internal/audit/egress';
import { AuditReceiver } from '../../support/audit-receiver';
import { startAuditServer } from '../../support/audit-server';
import { expectStatus } from '../../support/server';

/**
 * Safe egress at start: a sink URL whose host is, or resolves to, a loopback or private address
 * stops the start — the key named, and what to do — unless the host is listed in
 * audit.sinks.webhook.allowed_hosts; listed, the same URL is delivered to.
 */

const webhook = (url: string, allowed: string[]) => ({ sinks: { webhook: { enabled: true, url, allowed_hosts: allowed, max_backoff_duration: '1s' } } });

/** This machine's name, resolved by the system (/etc/hosts): local on every machine these tests run on, checked below. */
const LOCAL_NAME = hostname().toLowerCase();
const localAddresses = await lookup(LOCAL_NAME, { all: true }).catch(() => []);
const nameIsLocal = localAddresses.length > 0 && localAddresses.every((a) => refusedKind(a.address) !== null);

describe('audit egress at start', () => {
  let receiver: AuditReceiver;
  beforeAll(async () => {
    receiver = await AuditReceiver.start();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('refuses localhost when only 127.0.0.1 is listed, naming the key and the remedy', async () => {
    const url = `http://localhost:${receiver.port}/hook`;
    await expect(startAuditServer(webhook(url, ['127.0.0.1']))).rejects.toThrow(
      `audit.sinks.webhook.url: localhost is a loopback name: refused; list "localhost" in audit.sinks.webhook.allowed_hosts to allow it`,
    );
  });

  it('refuses a private address literal in a chat URL', async () => {
    const audit = { sinks: { webhook: { enabled: true, slack: { enabled: true, url: 'http://192.168.10.20/hook' } } } };
    await expect(startAuditServer(audit)).rejects.toThrow('audit.sinks.webhook.slack.url: 192.168.10.20 is a private address: refused; list "192.168.10.20" in audit.sinks.webhook.allowed_hosts');
  });

  it.skipIf(!nameIsLocal)(`refuses a name that resolves to a local address (${LOCAL_NAME}), and delivers to it once listed`, async () => {
    const url = `http://${LOCAL_NAME}:${receiver.port}/hook`;
    const kind = refusedKind(localAddresses[0].address);
    await expect(startAuditServer(webhook(url, ['127.0.0.1']))).rejects.toThrow(
      `audit.sinks.webhook.url: ${LOCAL_NAME} resolves to ${localAddresses[0].address} (${kind}): refused; list "${LOCAL_NAME}" in audit.sinks.webhook.allowed_hosts`,
    );
    const server = await startAuditServer(webhook(url, [LOCAL_NAME.toUpperCase()]));
    try {
      expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key: 'egress', name: 'Egress' }), 200);
      const [delivery] = await receiver.waitFor(1);
      expect(delivery.json).toMatchObject({ type: 'flag', action: 'created', key: 'egress' });
    } finally {
      await server.stop();
    }
  });
});
