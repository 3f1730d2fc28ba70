import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditReceiver, ok } from '../../support/audit-receiver';
import { startAuditServer, type AuditTestServer } from '../../support/audit-server';
import { backends, type CreatedDatabase } from '../../support/backends';
import { sampleValue } from '../../support/scrape';
import { expectStatus, type ApiClient } from '../../support/server';
import { until } from '../../support/wait';

/**
 * The audit sinks of one server, delivering to a receiver on loopback: every kind of change
 * reaches Flipt's webhook once, signed as Flipt signs, in the order written, with its delivery
 * id; Slack and Teams get their sentences; the log sink's file holds the same events; a failing
 * sink is retried while the others go on, and the metrics say so.
 */

const SECRET = 'whsec-audit-test';
const BOOTSTRAP = 'audit-delivery-bootstrap';

describe.each(backends())('audit delivery to webhook, Slack, Teams and the log on $name', (backend) => {
  let db: CreatedDatabase;
  let receiver: AuditReceiver;
  let server: AuditTestServer;
  let dir: string;
  let admin: ApiClient;
  let alice: ApiClient;

  beforeAll(async () => {
    db = await backend.create();
    receiver = await AuditReceiver.start(SECRET);
    dir = mkdtempSync(join(tmpdir(), 'pennon-audit-log-'));
    server = await startAuditServer(
      {
        buffer: { capacity: 10 },
        sinks: {
          log: { enabled: true, file: join(dir, 'audit.log') },
          webhook: {
            enabled: true,
            url: receiver.url('/hook'),
            signing_secret: SECRET,
            max_backoff_duration: '1s',
            allowed_hosts: ['127.0.0.1'],
            slack: { enabled: true, url: receiver.url('/slack') },
            teams: { enabled: true, url: receiver.url('/teams') },
          },
        },
      },
      { PENNON_DB_URL: db.url, PENNON_AUTHENTICATION_REQUIRED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: BOOTSTRAP },
      { dir },
    );
    admin = server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
    const token = expectStatus(await admin.post('/auth/v1/method/token', { name: 'alice' }), 200).clientToken;
    alice = server.api.withHeaders({ authorization: `Bearer ${token}` });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
    await db?.cleanup();
  });

  /** Every event the trail holds, oldest first. */
  async function trail(): Promise<any[]> {
    return expectStatus(await admin.get('/api/v1/audit/events?limit=1000'), 200).events.reverse();
  }

  it('every kind of change reaches the webhook once, signed, in the order written, with Flipt\'s fields and its delivery id', async () => {
    const ns = '/api/v1/namespaces/shop';
    expectStatus(await alice.post('/api/v1/namespaces', { key: 'shop', name: 'Shop' }), 200);
    expectStatus(await alice.put(ns, { name: 'Shop!' }), 200);
    expectStatus(await alice.post(`${ns}/flags`, { key: 'checkout-v2', name: 'Checkout', type: 'VARIANT_FLAG_TYPE' }), 200);
    expectStatus(await alice.put(`${ns}/flags/checkout-v2`, { name: 'Checkout', enabled: true }), 200);
    const variant = expectStatus(await alice.post(`${ns}/flags/checkout-v2/variants`, { key: 'on' }), 200);
    expectStatus(await alice.put(`${ns}/flags/checkout-v2/variants/${variant.id}`, { key: 'on', name: 'On' }), 200);
    expectStatus(await alice.post(`${ns}/segments`, { key: 'beta', name: 'Beta', matchType: 'ALL_MATCH_TYPE' }), 200);
    const constraint = expectStatus(await alice.post(`${ns}/segments/beta/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro' }), 200);
    expectStatus(await alice.put(`${ns}/segments/beta/constraints/${constraint.id}`, { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'max' }), 200);
    const r1 = expectStatus(await alice.post(`${ns}/flags/checkout-v2/rules`, { segmentKey: 'beta', rank: 1 }), 200);
    const r2 = expectStatus(await alice.post(`${ns}/flags/checkout-v2/rules`, { segmentKey: 'beta', rank: 2 }), 200);
    expectStatus(await alice.put(`${ns}/flags/checkout-v2/rules/order`, { ruleIds: [r2.id, r1.id] }), 200);
    const dist = expectStatus(await alice.post(`${ns}/flags/checkout-v2/rules/${r1.id}/distributions`, { variantId: variant.id, rollout: 50 }), 200);
    expectStatus(await alice.put(`${ns}/flags/checkout-v2/rules/${r1.id}/distributions/${dist.id}`, { variantId: variant.id, rollout: 70 }), 200);
    expectStatus(await alice.post(`${ns}/flags`, { key: 'dark-mode', name: 'Dark', type: 'BOOLEAN_FLAG_TYPE' }), 200);
    const rollout = expectStatus(await alice.post(`${ns}/flags/dark-mode/rollouts`, { rank: 1, threshold: { percentage: 50, value: true } }), 200);
    expectStatus(await alice.delete(`${ns}/flags/dark-mode/rollouts/${rollout.id}`), 200);
    expectStatus(await alice.request('POST', `${ns}/import`, 'flags:\n- {key: imported, name: Imported}\n', { 'content-type': 'application/yaml' }), 200);
    const temp = expectStatus(await admin.post('/auth/v1/method/token', { name: 'temp' }), 200);
    expectStatus(await admin.delete(`/auth/v1/tokens/${temp.authentication.id}`), 200);
    expectStatus(await alice.delete(`${ns}/flags/checkout-v2`), 200);
    expectStatus(await alice.delete(`${ns}/segments/beta`), 200);

    const written = await trail();
    const kinds = new Set(written.map((e) => `${e.type}:${e.action}`));
    for (const kind of ['namespace:created', 'namespace:updated', 'flag:created', 'flag:updated', 'flag:deleted', 'variant:created', 'variant:updated', 'segment:created', 'segment:deleted', 'constraint:created', 'constraint:updated', 'rule:created', 'rule:reordered', 'distribution:created', 'distribution:updated', 'rollout:created', 'rollout:deleted', 'import:created', 'token:created', 'token:deleted']) {
      expect(kinds, kind).toContain(kind);
    }
    const hook = await receiver.waitFor(written.length, '/hook');
    expect(hook.map((r) => r.json.id)).toEqual(written.map((e) => e.id));
    for (const r of hook) {
      expect(r.signed, `signature of ${r.json.type}:${r.json.action}`).toBe(true);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-pennon-delivery-id']).toBe(r.json.id);
      expect(r.json).toMatchObject({ version: '0.2', status: 'success', metadata: { actor: expect.any(Object) }, timestamp: expect.stringMatching(/Z$/) });
    }
    // The body is the trail's own JSON for the event.
    expect(hook.map((r) => r.json)).toEqual(written);
    const flagUpdate = hook.find((r) => r.json.type === 'flag' && r.json.action === 'updated')!.json;
    expect(flagUpdate).toMatchObject({ namespace: 'shop', key: 'checkout-v2', metadata: { actor: { authentication: 'token', name: 'alice' } }, before: { enabled: false }, payload: { enabled: true } });
  });

  it('Slack and Teams get one readable sentence per event, in their incoming webhooks\' shapes', async () => {
    const total = (await trail()).length;
    const [slack, teams] = await Promise.all([receiver.waitFor(total, '/slack'), receiver.waitFor(total, '/teams')]);
    const enabled = slack.find((r) => r.headers['x-pennon-delivery-id'] && r.json.text.includes('enabled flag checkout-v2'))!;
    expect(enabled.json.text).toBe('alice enabled flag checkout-v2 in shop');
    expect(enabled.json.blocks[0]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: 'alice enabled flag checkout-v2 in shop' } });
    expect(enabled.json.blocks[1].elements[0].text).toMatch(/^When: .+Z · Source: api · Namespace: shop · Request: .+ · Event: [0-9a-f-]{36}$/);
    expect(slack.map((r) => r.json.text)).toContain('alice updated variant on of flag checkout-v2 in shop: name "" → "On"');
    expect(slack.map((r) => r.json.text)).toContain('alice reordered the rules of flag checkout-v2 in shop');
    expect(slack.map((r) => r.json.text)).toContain('alice imported 1 flag into shop');

    const card = teams.find((r) => r.headers['x-pennon-delivery-id'] === enabled.headers['x-pennon-delivery-id'])!.json;
    expect(card.type).toBe('message');
    expect(card.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.attachments[0].content).toMatchObject({ type: 'AdaptiveCard', version: '1.4', body: [{ type: 'TextBlock', text: 'alice enabled flag checkout-v2 in shop', wrap: true }, { type: 'FactSet' }] });
    // Chat webhooks are not Flipt's: no signature.
    expect(slack.every((r) => r.headers['x-flipt-webhook-signature'] === undefined)).toBe(true);
  });

  it('the log sink appends the same events as JSON lines', async () => {
    const written = await trail();
    const file = join(dir, 'audit.log');
    await until(() => readFileSync(file, 'utf8').split('\n').filter(Boolean).length >= written.length, 'the log file holds every event');
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
    expect(lines).toEqual(written);
  });

  it('a sink that fails is retried, in order, while the others go on; the metrics count both and the backlog', async () => {
    receiver.answer = (res, r) => (r.path === '/teams' ? res.writeHead(503).end('maintenance') : ok(res, r));
    const before = { hook: receiver.at('/hook').length, teams: receiver.at('/teams').length };
    for (const key of ['m1', 'm2', 'm3']) expectStatus(await alice.post('/api/v1/namespaces/shop/flags', { key, name: key }), 200);
    await receiver.waitFor(before.hook + 3, '/hook');
    const scrape = async () => (await server.api.get('/metrics')).text;
    const teamsFailures = async () => sampleValue(await scrape(), 'service_audit_deliveries_total', { sink: 'teams', outcome: 'failure' });
    await until(async () => (await teamsFailures()) >= 3, 'teams failed three attempts');
    let text = await scrape();
    expect(sampleValue(text, 'service_audit_outbox_backlog', { sink: 'teams' })).toBe(3);
    expect(sampleValue(text, 'service_audit_outbox_backlog', { sink: 'webhook' })).toBe(0);
    expect(sampleValue(text, 'service_audit_outbox_oldest_age_seconds', { sink: 'teams' })).toBeGreaterThan(0);
    expect(receiver.at('/teams').length).toBeGreaterThanOrEqual(before.teams + 3);
    // Only the head is tried while it fails: the other two wait behind it.
    const tried = new Set(receiver.at('/teams').slice(before.teams).map((r) => r.headers['x-pennon-delivery-id']));
    expect(tried.size).toBe(1);

    receiver.answer = ok;
    const written = await trail();
    const teamsIds = () => [...new Set(receiver.at('/teams').map((r) => r.headers['x-pennon-delivery-id']))];
    await until(() => teamsIds().length === written.length, 'teams has every event');
    // Each event in the order written; the one retried appears again under its own id.
    expect(teamsIds()).toEqual(written.map((e) => e.id));
    await until(async () => sampleValue(await scrape(), 'service_audit_outbox_backlog', { sink: 'teams' }) === 0, 'the teams backlog drained (scrapes cache it for 1 s)');
    text = await scrape();
    expect(sampleValue(text, 'service_audit_events_written_total', {})).toBe(written.length);
    expect(sampleValue(text, 'service_audit_deliveries_total', { sink: 'webhook', outcome: 'success' })).toBe(written.length);
    expect(sampleValue(text, 'service_audit_deliveries_total', { sink: 'teams', outcome: 'success' })).toBe(written.length);
    expect(sampleValue(text, 'service_audit_deliveries_total', { sink: 'log', outcome: 'success' })).toBe(written.length);
    expect(text).not.toMatch(/service_audit_outbox_oldest_age_seconds\{sink="teams"\}/);
  });
});
