import { beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, useTokenServer } from '../../support/server';

/**
 * The audit trail over HTTP: who (the token's id and name), through which door, with which
 * request id; Flipt's event fields plus before/after in the API's JSON; filters, paging, and
 * the scope of namespace-scoped tokens.
 */

const BOOTSTRAP = 'audit-bootstrap-token';

describe('GET /api/v1/namespaces/{ns}/audit/events', () => {
  const { admin, scoped } = useTokenServer(BOOTSTRAP, 'team');
  let flagEvents: any[];

  beforeAll(async () => {
    expectStatus(await admin.post('/api/v1/namespaces', { key: 'team', name: 'Team' }), 200);
    expectStatus(await scoped.post('/api/v1/namespaces/team/flags', { key: 'checkout', name: 'Checkout', type: 'VARIANT_FLAG_TYPE' }), 200);
    expectStatus(await scoped.request('PUT', '/api/v1/namespaces/team/flags/checkout', { name: 'Checkout', enabled: true }, { 'x-request-id': 'req-42', 'x-pennon-client': 'dashboard' }), 200);
    flagEvents = expectStatus(await admin.get('/api/v1/namespaces/team/audit/events?type=flag'), 200).events;
  });

  it("answers Flipt's event fields, with before and after in the API's JSON, the actor and the door", async () => {
    expect(flagEvents.map((e) => e.action)).toEqual(['updated', 'created']);
    const [updated, created] = flagEvents;
    expect(updated).toMatchObject({
      version: '0.2',
      type: 'flag',
      action: 'updated',
      status: 'success',
      namespace: 'team',
      key: 'checkout',
      requestId: 'req-42',
      source: 'dashboard',
      metadata: { actor: { authentication: 'token', name: 'team only' } },
      before: { key: 'checkout', enabled: false, namespaceKey: 'team', type: 'VARIANT_FLAG_TYPE' },
      payload: { key: 'checkout', enabled: true },
    });
    expect(updated.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(updated.payload.createdAt).toMatch(/Z$/);
    expect(updated.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created).toMatchObject({ action: 'created', before: null, source: 'api' });
    expect(created.metadata.actor.id).toBe(updated.metadata.actor.id);
  });

  it('records tokens created through the API, never their hash', async () => {
    const tokens = expectStatus(await admin.get('/api/v1/audit/events?type=token&action=created'), 200).events;
    const mine = tokens.find((e: any) => e.payload?.metadata?.['io.flipt.auth.token.name'] === 'team only');
    expect(mine).toMatchObject({ namespace: 'team', metadata: { actor: { authentication: 'token' } } });
    expect(JSON.stringify(tokens)).not.toMatch(/hashed/i);
  });

  it('filters by key, action, actor and time, and pages newest first', async () => {
    for (let i = 0; i < 5; i++) expectStatus(await admin.post('/api/v1/namespaces/team/segments', { key: `s${i}`, name: 'S', matchType: 'ALL_MATCH_TYPE' }), 200);
    const all = expectStatus(await admin.get('/api/v1/namespaces/team/audit/events'), 200).events;
    expect(all.slice(0, 5).map((e: any) => e.key)).toEqual(['s4', 's3', 's2', 's1', 's0']);

    const first = expectStatus(await admin.get('/api/v1/namespaces/team/audit/events?limit=2'), 200);
    expect(first.events.map((e: any) => e.key)).toEqual(['s4', 's3']);
    const second = expectStatus(await admin.get(`/api/v1/namespaces/team/audit/events?limit=2&pageToken=${encodeURIComponent(first.nextPageToken)}`), 200);
    expect(second.events.map((e: any) => e.key)).toEqual(['s2', 's1']);

    expect(expectStatus(await admin.get('/api/v1/namespaces/team/audit/events?key=checkout&action=updated'), 200).events).toHaveLength(1);
    expect(expectStatus(await admin.get('/api/v1/namespaces/team/audit/events?actor=team%20only'), 200).events.map((e: any) => e.action)).toEqual(['updated', 'created']);
    expect(expectStatus(await admin.get('/api/v1/namespaces/team/audit/events?type=segment,flag&since=1h'), 200).events).toHaveLength(7);
    expect(expectStatus(await admin.get('/api/v1/namespaces/team/audit/events?until=2000-01-01T00:00:00Z'), 200).events).toEqual([]);
    expect(expectStatus(await admin.get(`/api/v1/namespaces/team/audit/events?since=${encodeURIComponent(all[2].timestamp)}`), 200).events).toHaveLength(3);
  });

  it('refuses a bad parameter with a 400 naming it', async () => {
    for (const [query, field] of [
      ['type=flags', 'type'],
      ['action=enabled', 'action'],
      ['since=yesterday', 'since'],
      ['limit=-1', 'limit'],
      ['pageToken=nope', 'pageToken'],
    ]) {
      const res = await admin.get(`/api/v1/namespaces/team/audit/events?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toContain(field);
    }
  });

  it("keeps a scoped token to its namespace's trail", async () => {
    expect(expectStatus(await scoped.get('/api/v1/namespaces/team/audit/events'), 200).events.length).toBeGreaterThan(0);
    expect((await scoped.get('/api/v1/namespaces/default/audit/events')).status).toBe(401);
    expect((await scoped.get('/api/v1/audit/events')).status).toBe(401);
  });
});

describe('the audit trail of an import through the bulk route', () => {
  const { admin } = useTokenServer('audit-import-token', 'imports');

  it('is one summary event with counts plus an event per flag and segment, filed under the token that imported', async () => {
    const document = ['namespace: imports', 'flags:', '  - key: a', '    name: A', '  - key: b', '    name: B', 'segments:', '  - key: s', '    name: S', '    match_type: ALL_MATCH_TYPE', ''].join('\n');
    expectStatus(await admin.post('/api/v1/namespaces', { key: 'imports', name: 'Imports' }), 200);
    expectStatus(await admin.request('POST', '/api/v1/namespaces/imports/import', document, { 'content-type': 'application/yaml', 'x-request-id': 'import-1' }), 200);
    const events = expectStatus(await admin.get('/api/v1/namespaces/imports/audit/events?limit=4'), 200).events.reverse();
    expect(events.map((e: any) => `${e.type}:${e.key}`)).toEqual(['flag:a', 'flag:b', 'segment:s', 'import:']);
    expect(events[3]).toMatchObject({ requestId: 'import-1', source: 'api', metadata: { actor: { authentication: 'token' } }, payload: { flags: 2, segments: 1 } });
  });
});
