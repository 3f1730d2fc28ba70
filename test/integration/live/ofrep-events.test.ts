import { EventSource } from 'eventsource';
import { OpenFeature, ProviderEvents, type Client } from '@openfeature/web-sdk';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, useServer, useTokenServer } from '../../support/server';
import { SseClient } from '../../support/sse';

/**
 * OFREP's event streams (ADR-0008): the bulk answer names an SSE endpoint, which announces each
 * new revision of the namespace; the real @openfeature/ofrep-web-provider (in Node, with the
 * standard EventSource of the `eventsource` package) follows it and re-fetches without polling.
 */

const STREAM = (ns: string) => `/ofrep/v1/_stream/default/${ns}/events`;

async function seedFlag(api: ReturnType<typeof useServer>['api'], ns: string, key: string, variants: string[], ruleVariant: string) {
  if (ns !== 'default') expectStatus(await api.post('/api/v1/namespaces', { key: ns, name: ns }), 200);
  expectStatus(await api.post(`/api/v1/namespaces/${ns}/flags`, { key, name: key, type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
  for (const v of variants) expectStatus(await api.post(`/api/v1/namespaces/${ns}/flags/${key}/variants`, { key: v }), 200);
  const variant = (await api.get(`/api/v1/namespaces/${ns}/flags/${key}`)).body.variants.find((x: { key: string }) => x.key === ruleVariant);
  expectStatus(await api.post(`/api/v1/namespaces/${ns}/segments`, { key: 'all', name: 'all', matchType: 'ALL_MATCH_TYPE' }), 200);
  const rule = expectStatus(await api.post(`/api/v1/namespaces/${ns}/flags/${key}/rules`, { segmentKey: 'all', rank: 1 }), 200);
  const distribution = expectStatus(await api.post(`/api/v1/namespaces/${ns}/flags/${key}/rules/${rule.id}/distributions`, { variantId: variant.id, rollout: 100 }), 200);
  return { rule: rule.id as string, id: distribution.id as string };
}

describe('OFREP event streams', () => {
  const server = useServer();
  let distribution: { rule: string; id: string };
  beforeAll(async () => {
    distribution = await seedFlag(server.api, 'live', 'color', ['red', 'blue'], 'red');
  });

  it('the bulk answer names the stream; each change sends one refetchEvaluation with the new version, other namespaces none', async () => {
    const bulk = await fetch(`${server.url}/ofrep/v1/evaluate/flags`, { method: 'POST', headers: { 'x-flipt-namespace': 'live', 'content-type': 'application/json' }, body: JSON.stringify({ context: { targetingKey: 'u1' } }) });
    expect(bulk.status).toBe(200);
    const body = (await bulk.json()) as any;
    expect(body.eventStreams).toEqual([{ type: 'sse', endpoint: { requestUri: STREAM('live') }, inactivityDelaySec: 120 }]);
    expect(body.flags.map((f: { key: string; value: string }) => [f.key, f.value])).toEqual([['color', 'red']]);

    const sse = new SseClient(`${server.url}${body.eventStreams[0].endpoint.requestUri}`);
    try {
      await sse.opened;
      const first = await sse.next();
      expect(first).toMatchObject({ type: 'refetchEvaluation' });
      expect(typeof first.etag).toBe('string');
      expect(typeof first.lastModified).toBe('number');

      const started = Date.now();
      expectStatus(await server.api.put('/api/v1/namespaces/live/flags/color', { key: 'color', name: 'Color 2', enabled: true }), 200);
      const second = await sse.next(1000);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(second.type).toBe('refetchEvaluation');
      expect(second.etag).not.toBe(first.etag);
      expect(second.lastModified).toBeGreaterThanOrEqual(first.lastModified);

      // A write elsewhere says nothing here.
      expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key: 'other', name: 'other', type: 'BOOLEAN_FLAG_TYPE' }), 200);
      await expect(sse.next(300)).rejects.toThrow(/no event/);

      // flagConfigEtag with the announced version: answered at (at least) that version.
      const refetched = await fetch(`${server.url}/ofrep/v1/evaluate/flags?flagConfigEtag=${encodeURIComponent(second.etag)}&flagConfigLastModified=${second.lastModified}`, {
        method: 'POST',
        headers: { 'x-flipt-namespace': 'live', 'if-none-match': bulk.headers.get('etag')! },
        body: JSON.stringify({ context: { targetingKey: 'u1' } }),
      });
      // Only the flag's name changed: the same evaluations, so the same ETag.
      expect(refetched.status).toBe(304);
    } finally {
      sse.close();
    }
  });

  it('refuses unreadable metadata with a 400 naming it, and an unknown environment with a 404', async () => {
    const post = (query: string) => fetch(`${server.url}/ofrep/v1/evaluate/flags?${query}`, { method: 'POST', headers: { 'x-flipt-namespace': 'live' }, body: '{}' });
    const bad = await post('flagConfigLastModified=yesterday');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).errorDetails).toMatch(/flagConfigLastModified/);
    const twice = await post('flagConfigEtag=a&flagConfigEtag=b');
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as any).errorDetails).toMatch(/flagConfigEtag/);
    const unknown = await fetch(`${server.url}/ofrep/v1/_stream/production/live/events`);
    expect(unknown.status).toBe(404);
  });

  it('the real ofrep-web-provider hears a change through the stream, with polling off', async () => {
    (globalThis as { EventSource?: unknown }).EventSource = EventSource;
    const provider = new OFREPWebProvider({ baseUrl: server.url, headers: [['X-Flipt-Namespace', 'live']], pollInterval: 0, cacheMode: 'disabled' });
    let client: Client | undefined;
    try {
      await OpenFeature.setProviderAndWait('live', provider, { targetingKey: 'u1' });
      client = OpenFeature.getClient('live');
      expect(client.getStringValue('color', 'none')).toBe('red');
      const changed = new Promise<number>((resolve) => client!.addHandler(ProviderEvents.ConfigurationChanged, () => resolve(Date.now())));
      const variants = (await server.api.get('/api/v1/namespaces/live/flags/color')).body.variants;
      const blue = variants.find((v: { key: string }) => v.key === 'blue');
      const started = Date.now();
      expectStatus(await server.api.put(`/api/v1/namespaces/live/flags/color/rules/${distribution.rule}/distributions/${distribution.id}`, { variantId: blue.id, rollout: 100 }), 200);
      const at = await Promise.race([changed, new Promise<number>((_, reject) => setTimeout(() => reject(new Error('no change event within 2 s')), 2000))]);
      expect(at - started).toBeLessThan(1500);
      expect(client.getStringValue('color', 'none')).toBe('blue');
    } finally {
      await OpenFeature.clearProviders();
      delete (globalThis as { EventSource?: unknown }).EventSource;
    }
  });
});

describe('OFREP event streams with authentication required', () => {
  const { server, admin } = useTokenServer('bootstrap-live', 'team');
  let token: string;
  beforeAll(async () => {
    await seedFlag(admin, 'live', 'color', ['red'], 'red');
    token = expectStatus(await admin.post('/auth/v1/method/token', { name: 'ofrep client' }), 200).clientToken;
  });

  it('the bulk answer carries a ticket for the stream; without it or with another namespace’s, 401', async () => {
    const bulk = await fetch(`${server.url}/ofrep/v1/evaluate/flags`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-flipt-namespace': 'live' }, body: '{}' });
    expect(bulk.status).toBe(200);
    const uri: string = ((await bulk.json()) as any).eventStreams[0].endpoint.requestUri;
    expect(uri).toMatch(/^\/ofrep\/v1\/_stream\/default\/live\/events\?ticket=/);
    const sse = new SseClient(`${server.url}${uri}`);
    try {
      await sse.opened;
      expect((await sse.next()).type).toBe('refetchEvaluation');
    } finally {
      sse.close();
    }
    expect((await fetch(`${server.url}${STREAM('live')}`)).status).toBe(401);
    const ticket = new URL(uri, server.url).searchParams.get('ticket')!;
    expect((await fetch(`${server.url}${STREAM('default')}?ticket=${encodeURIComponent(ticket)}`)).status).toBe(401);
    // The header works too, for clients that can send one.
    const withHeader = new SseClient(`${server.url}${STREAM('live')}`, { authorization: `Bearer ${token}` });
    try {
      await withHeader.opened;
      expect((await withHeader.next()).type).toBe('refetchEvaluation');
    } finally {
      withHeader.close();
    }
    // A deleted token's ticket stops working.
    const id = (await admin.get('/auth/v1/tokens')).body.authentications.find((a: { metadata: Record<string, string> }) => a.metadata['io.flipt.auth.token.name'] === 'ofrep client').id;
    expectStatus(await admin.delete(`/auth/v1/tokens/${id}`), 200);
    expect((await fetch(`${server.url}${uri}`)).status).toBe(401);
  });
});
