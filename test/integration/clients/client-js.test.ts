import type { NodeFliptClient } from '@flipt-io/flipt-client-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, useServer } from '../../support/server';
import { findEntity, seedClientFixture, thresholdValue, variantBucket, type Seeded } from '../../support/client-fixture';
import { initClient, startTap, type Tap } from '../../support/clients';

/**
 * `@flipt-io/flipt-client-js` 0.5.1: it downloads the namespace snapshot
 * from `/internal/v1/evaluation/snapshot/namespace/{ns}` and evaluates locally with Flipt's
 * own (WASM) engine. Its local results must equal the server's REST results; the snapshot
 * endpoint's ETag / version-gate behaviour is checked with plain fetch. No auth: not
 * implemented yet.
 */

const LOW_50 = findEntity((id) => variantBucket('flag1', id) < 500);
const HIGH_50 = findEntity((id) => variantBucket('flag1', id) >= 500);
const UNDER_THRESHOLD = findEntity((id) => thresholdValue('flag_boolean', id) < 50);
const OVER_THRESHOLD = findEntity((id) => thresholdValue('flag_boolean', id) >= 50);
const SNAPSHOT = '/internal/v1/evaluation/snapshot/namespace';

interface Case {
  kind: 'variant' | 'boolean';
  flagKey: string;
  entityId: string;
  context: Record<string, string>;
}

const CASES: Case[] = [
  { kind: 'variant', flagKey: 'flag1', entityId: 'user-1', context: { fizz: 'buzz' } },
  { kind: 'variant', flagKey: 'flag1', entityId: LOW_50, context: { fizz: 'no' } },
  { kind: 'variant', flagKey: 'flag1', entityId: HIGH_50, context: {} },
  { kind: 'variant', flagKey: 'flag_number', entityId: 'user-2', context: {} },
  { kind: 'variant', flagKey: 'flag_json', entityId: 'user-3', context: {} },
  { kind: 'variant', flagKey: 'flag_default_variant', entityId: 'user-4', context: {} },
  { kind: 'variant', flagKey: 'flag_disabled', entityId: 'user-5', context: { fizz: 'buzz' } },
  { kind: 'variant', flagKey: 'flag_any', entityId: 'user-6', context: { age: '18' } },
  { kind: 'variant', flagKey: 'flag_any', entityId: 'user-6', context: { age: '17', beta: 'true' } },
  { kind: 'variant', flagKey: 'flag_any', entityId: 'user-6', context: { age: '17', beta: 'false' } },
  { kind: 'variant', flagKey: 'flag_entity', entityId: 'vip-user', context: {} },
  { kind: 'variant', flagKey: 'flag_entity', entityId: 'user-7', context: { signup: '2025-03-04T05:06:07Z' } },
  { kind: 'variant', flagKey: 'flag_entity', entityId: 'user-7', context: { signup: '2024-03-04T05:06:07Z' } },
  { kind: 'boolean', flagKey: 'flag_boolean', entityId: 'user-8', context: { fizz: 'buzz' } },
  { kind: 'boolean', flagKey: 'flag_boolean', entityId: UNDER_THRESHOLD, context: {} },
  { kind: 'boolean', flagKey: 'flag_boolean', entityId: OVER_THRESHOLD, context: {} },
  { kind: 'boolean', flagKey: 'flag_boolean_on', entityId: 'vip-user', context: {} },
  { kind: 'boolean', flagKey: 'flag_boolean_on', entityId: 'user-9', context: {} },
];

/** The fields both sides must agree on (timestamps, durations and request ids are ignored). */
function essentials(r: Record<string, any>) {
  const out: Record<string, unknown> = { reason: r.reason, segmentKeys: [...(r.segmentKeys ?? [])].sort() };
  if ('enabled' in r) out.enabled = r.enabled;
  else Object.assign(out, { match: r.match, variantKey: r.variantKey, variantAttachment: r.variantAttachment ?? '' });
  return out;
}

const server = useServer();
let seeded: Seeded;
let tap: Tap;
const clients: Record<string, NodeFliptClient> = {};

beforeAll(async () => {
  seeded = await seedClientFixture(server.api);
  tap = await startTap(server.url);
  // `default` goes through the recording proxy, so its polls can be inspected.
  clients.default = await initClient(tap.url, 'default');
  clients.ns1 = await initClient(server.url, 'ns1');
});
afterAll(async () => {
  for (const c of Object.values(clients)) c.close();
  await tap?.close();
});

const rest = async (ns: string, c: Case) =>
  expectStatus(await server.api.post(`/evaluate/v1/${c.kind}`, { namespaceKey: ns, flagKey: c.flagKey, entityId: c.entityId, context: c.context }), 200);

describe.each(['default', 'ns1'])('flipt-client-js in %s agrees with REST', (ns) => {
  it.each(CASES.map((c) => [`${c.kind} ${c.flagKey} ${c.entityId} ${JSON.stringify(c.context)}`, c] as const))('%s', async (_, c) => {
    const remote = await rest(ns, c);
    const local = c.kind === 'variant' ? clients[ns].evaluateVariant(c) : clients[ns].evaluateBoolean(c);
    expect(essentials(local)).toEqual(essentials(remote));
  });

  it('evaluateBatch matches /evaluate/v1/batch item by item, including a not-found item', async () => {
    const requests = [...CASES, { kind: 'variant', flagKey: 'missing', entityId: 'user-1', context: {} } as Case];
    const local = clients[ns].evaluateBatch(requests.map(({ flagKey, entityId, context }) => ({ flagKey, entityId, context })));
    const remote = expectStatus(await server.api.post('/evaluate/v1/batch', { requests: requests.map(({ flagKey, entityId, context }) => ({ namespaceKey: ns, flagKey, entityId, context })) }), 200);
    expect(local.responses.map((r) => r.type)).toEqual(remote.responses.map((r: { type: string }) => r.type));
    expect(remote.responses.at(-1)).toEqual({ type: 'ERROR_EVALUATION_RESPONSE_TYPE', errorResponse: { flagKey: 'missing', namespaceKey: ns, reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' } });
    expect(local.responses.at(-1)?.errorEvaluationResponse).toMatchObject({ flagKey: 'missing', reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' });
    local.responses.slice(0, -1).forEach((l, i) => {
      const r = remote.responses[i];
      const localItem = l.variantEvaluationResponse ?? l.booleanEvaluationResponse;
      const remoteItem = r.variantResponse ?? r.booleanResponse;
      expect(essentials(localItem as unknown as Record<string, unknown>), `item ${i}`).toEqual(essentials(remoteItem));
    });
  });

  it('listFlags matches the REST flag list (key, enabled, type, description)', async () => {
    const remote = expectStatus(await server.api.get(`/api/v1/namespaces/${ns}/flags`), 200);
    const pick = (f: { key: string; enabled: boolean; type: string; description?: string }) => ({ key: f.key, enabled: f.enabled, type: f.type, description: f.description ?? '' });
    const sortByKey = <T extends { key: string }>(a: T[]) => [...a].sort((x, y) => x.key.localeCompare(y.key));
    const local = sortByKey(clients[ns].listFlags().map(pick));
    expect(local).toEqual(sortByKey(remote.flags.map(pick)));
    expect(local.length).toBe(ns === 'ns1' ? 10 : 9);
  });

  it('errors on an unknown flag and the wrong type, as REST does', async () => {
    expect(() => clients[ns].evaluateVariant({ flagKey: 'missing', entityId: 'u', context: {} })).toThrow(`failed to get flag information ${ns}/missing`);
    expect((await server.api.post('/evaluate/v1/variant', { namespaceKey: ns, flagKey: 'missing', entityId: 'u' })).status).toBe(404);
    expect(() => clients[ns].evaluateVariant({ flagKey: 'flag_boolean', entityId: 'u', context: {} })).toThrow('flag_boolean is not a variant flag');
    expect((await server.api.post('/evaluate/v1/variant', { namespaceKey: ns, flagKey: 'flag_boolean', entityId: 'u' })).status).toBe(400);
  });
});

describe('snapshot endpoint (plain fetch)', () => {
  type Snapshot = { namespace: { key: string }; flags: Record<string, any>[] };
  const get = (ns: string, headers: Record<string, string> = {}) => fetch(`${server.url}${SNAPSHOT}/${ns}`, { headers });
  const json = async (res: Response | Promise<Response>) => (await (await res).json()) as Snapshot;
  const flagOf = (doc: Snapshot, key: string) => doc.flags.find((f) => f.key === key) as Record<string, any>;

  it('serves a stable unquoted ETag and a 304 that repeats it', async () => {
    const a = await get('default');
    const b = await get('default');
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    const etag = a.headers.get('etag');
    expect(etag).toMatch(/^[0-9a-f]{40}$/);
    expect(b.headers.get('etag')).toBe(etag);
    expect((await json(a)).namespace).toEqual({ key: 'default' });
    const c = await get('default', { 'If-None-Match': etag! });
    expect(c.status).toBe(304);
    expect(c.headers.get('etag')).toBe(etag);
    expect(await c.text()).toBe('');
    const other = await get('ns1', { 'If-None-Match': etag! });
    expect(other.status).toBe(200);
    expect(other.headers.get('etag')).not.toBe(etag);
  });

  it('carries the fields the engine requires, rules and rollouts in rank order', async () => {
    const doc = await json(get('default', { 'x-flipt-accept-server-version': '1.47.0' }));
    const flag1 = flagOf(doc, 'flag1');
    expect(flag1).toMatchObject({ key: 'flag1', name: 'flag1', enabled: true, type: 'VARIANT_FLAG_TYPE', rollouts: [] });
    expect(flag1.rules.map((r: { rank: number; segmentOperator: string }) => [r.rank, r.segmentOperator])).toEqual([[1, 'OR_SEGMENT_OPERATOR'], [2, 'OR_SEGMENT_OPERATOR']]);
    expect(flag1.rules[1].segments).toEqual([expect.objectContaining({ key: 'everyone', matchType: 'ALL_SEGMENT_MATCH_TYPE', constraints: [] })]);
    expect(flag1.rules[1].distributions.map((d: { variantKey: string; rollout: number }) => [d.variantKey, d.rollout])).toEqual([['variant1', 50], ['variant2', 50]]);
    const any = flagOf(doc, 'flag_any').rules[0].segments[0];
    expect(any.matchType).toBe('ANY_SEGMENT_MATCH_TYPE');
    expect(any.constraints.map((c: Record<string, string>) => [c.type, c.property, c.operator, c.value])).toEqual([
      ['NUMBER_CONSTRAINT_COMPARISON_TYPE', 'age', 'gte', '18'],
      ['BOOLEAN_CONSTRAINT_COMPARISON_TYPE', 'beta', 'true', ''],
    ]);
    const bool = flagOf(doc, 'flag_boolean');
    expect(bool).toMatchObject({ type: 'BOOLEAN_FLAG_TYPE', enabled: false, rules: [] });
    expect(bool.rollouts).toEqual([
      expect.objectContaining({ rank: 1, segment: expect.objectContaining({ value: true, segmentOperator: 'OR_SEGMENT_OPERATOR', segments: [expect.objectContaining({ key: 'segment1' })] }) }),
      expect.objectContaining({ rank: 2, threshold: { percentage: 50, value: true } }),
    ]);
  });

  it('gates defaultVariant on x-flipt-accept-server-version 1.47.0', async () => {
    const at = flagOf(await json(get('default', { 'x-flipt-accept-server-version': '1.47.0' })), 'flag_default_variant');
    expect(at.defaultVariant).toMatchObject({ key: 'dv_default', attachment: '{"d":true}' });
    expect(typeof at.defaultVariant.id).toBe('string');
    const below = flagOf(await json(get('default', { 'x-flipt-accept-server-version': '1.46.9' })), 'flag_default_variant');
    expect(below).not.toHaveProperty('defaultVariant');
    const none = flagOf(await json(get('default')), 'flag_default_variant');
    expect(none).not.toHaveProperty('defaultVariant');
  });

  it('downgrades ENTITY_ID constraints to UNKNOWN below 1.38.0 (and without the header)', async () => {
    const typeAt = async (headers: Record<string, string>) => flagOf(await json(get('default', headers)), 'flag_entity').rules[0].segments[0].constraints[0].type;
    expect(await typeAt({ 'x-flipt-accept-server-version': '1.38.0' })).toBe('ENTITY_ID_CONSTRAINT_COMPARISON_TYPE');
    expect(await typeAt({ 'x-flipt-accept-server-version': '1.37.9' })).toBe('UNKNOWN_CONSTRAINT_COMPARISON_TYPE');
    expect(await typeAt({})).toBe('UNKNOWN_CONSTRAINT_COMPARISON_TYPE');
    const datetime = flagOf(await json(get('default')), 'flag_entity').rules[1].segments[0].constraints[0];
    expect(datetime).toMatchObject({ type: 'DATETIME_CONSTRAINT_COMPARISON_TYPE', property: 'signup', operator: 'gte', value: '2025-01-01T00:00:00Z' });
  });

  it('answers 200 with no flags for a namespace that does not exist', async () => {
    const res = await get('no-such-namespace');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ namespace: { key: 'no-such-namespace' }, flags: [] });
  });
});

describe('propagation to a polling client', () => {
  it('a distribution change shows in REST at once, changes the ETag, and reaches client-js by its next polls', async () => {
    const client = clients.default;
    const probe: Case = { kind: 'variant', flagKey: 'flag1', entityId: LOW_50, context: {} };
    expect(client.evaluateVariant(probe).variantKey).toBe('variant1');
    const before = (await fetch(`${server.url}${SNAPSHOT}/default`)).headers.get('etag');

    // The client polls every second with If-None-Match and gets 304 while nothing changes (the
    // bounds here and below are ten polls: a loaded machine delays them, it does not skip them).
    const deadline304 = Date.now() + 10_000;
    while (!tap.exchanges.some((e) => e.status === 304) && Date.now() < deadline304) await new Promise((r) => setTimeout(r, 100));
    const polls = tap.exchanges.filter((e) => e.path === `${SNAPSHOT}/default`);
    expect(polls[0]).toMatchObject({ method: 'GET', status: 200 });
    expect(polls[0].headers['x-flipt-accept-server-version']).toBe('1.47.0');
    expect(polls.find((e) => e.status === 304)?.headers['if-none-match']).toBe(before);

    // Rule 2's first distribution (variant1 50%) now points at variant2: everyone not in segment1 gets variant2.
    const f = seeded.default.flag1;
    const url = `/api/v1/namespaces/default/flags/flag1/rules/${f.rules.everyone}/distributions/${f.everyoneDistributions[0]}`;
    const updated = expectStatus(await server.api.put(url, { variantId: f.variants.variant2, rollout: 50 }), 200);
    expect(updated).toMatchObject({ variantId: f.variants.variant2, rollout: 50 });

    expect((await rest('default', probe)).variantKey).toBe('variant2');
    const after = (await fetch(`${server.url}${SNAPSHOT}/default`)).headers.get('etag');
    expect(after).toMatch(/^[0-9a-f]{40}$/);
    expect(after).not.toBe(before);
    expect((await fetch(`${server.url}${SNAPSHOT}/default`, { headers: { 'If-None-Match': before! } })).status).toBe(200);

    const started = Date.now();
    let seen = client.evaluateVariant(probe).variantKey;
    while (seen !== 'variant2' && Date.now() - started < 10_000) {
      await new Promise((r) => setTimeout(r, 50));
      seen = client.evaluateVariant(probe).variantKey;
    }
    expect(seen, `client-js still evaluates ${seen} after ${Date.now() - started} ms`).toBe('variant2');
    // ns1 was not touched.
    expect(clients.ns1.evaluateVariant(probe).variantKey).toBe('variant1');
  });
});
