import { FliptClient, type BatchEvaluationResponse, type Flag } from '@flipt-io/flipt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../../support/server';
import { JSON_ATTACHMENT, findEntity, seedClientFixture, thresholdValue, variantBucket } from '../../support/client-fixture';
import { startTap, type Tap } from '../../support/clients';

/**
 * `@flipt-io/flipt` 1.5.0 (the REST server SDK) against a live server. The
 * SDK is pointed at a recording pass-through proxy so the tests can also check what the SDK
 * put on the wire (text/plain bodies, snake_case request_id). No auth: not implemented yet.
 */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VARIANT_FIELDS = ['flagKey', 'match', 'reason', 'requestDurationMillis', 'requestId', 'segmentKeys', 'timestamp', 'variantAttachment', 'variantKey'];
const BOOLEAN_FIELDS = ['enabled', 'flagKey', 'reason', 'requestDurationMillis', 'requestId', 'segmentKeys', 'timestamp'];

// Entity ids with a known bucket (crc32 as Flipt's crc32Num computes it).
const LOW_50 = findEntity((id) => variantBucket('flag1', id) < 500);
const HIGH_50 = findEntity((id) => variantBucket('flag1', id) >= 500);
const UNDER_THRESHOLD = findEntity((id) => thresholdValue('flag_boolean', id) < 50);
const OVER_THRESHOLD = findEntity((id) => thresholdValue('flag_boolean', id) >= 50);

describe('@flipt-io/flipt FliptClient', () => {
  const server = useServer();
  let tap: Tap;
  let client: FliptClient;

  beforeAll(async () => {
    await seedClientFixture(server.api);
    tap = await startTap(server.url);
    client = new FliptClient({ url: tap.url });
  });
  afterAll(async () => {
    await tap?.close();
  });

  const variant = (flagKey: string, entityId: string, context: Record<string, string> = {}, namespaceKey = 'default') =>
    client.evaluation.variant({ namespaceKey, flagKey, entityId, context });
  const boolean = (flagKey: string, entityId: string, context: Record<string, string> = {}, namespaceKey = 'default') =>
    client.evaluation.boolean({ namespaceKey, flagKey, entityId, context });

  describe('evaluation.variant', () => {
    it('returns the exact response shape for a segment match', async () => {
      const r = await variant('flag1', 'user-1', { fizz: 'buzz' });
      expect(Object.keys(r).sort()).toEqual(VARIANT_FIELDS);
      expect(r).toMatchObject({
        flagKey: 'flag1',
        match: true,
        reason: 'MATCH_EVALUATION_REASON',
        segmentKeys: ['segment1'],
        variantKey: 'variant1',
        variantAttachment: '{"v":1}',
      });
      expect((r as unknown as { requestId: string }).requestId).toMatch(UUID);
      expect(r.timestamp).toMatch(TIMESTAMP);
      expect(typeof r.requestDurationMillis).toBe('number');
      expect(r.requestDurationMillis).toBeGreaterThanOrEqual(0);
    });

    it('selects the namespace from namespaceKey (ns1 sends segment1 to variant2)', async () => {
      const r = await variant('flag1', 'user-1', { fizz: 'buzz' }, 'ns1');
      expect(r).toMatchObject({ match: true, variantKey: 'variant2', variantAttachment: '', segmentKeys: ['segment1'] });
      expect((await variant('ns1_only', 'user-1', {}, 'ns1')).variantKey).toBe('ns1_variant');
    });

    it('splits the everyone rule 50/50 by bucket', async () => {
      const lo = await variant('flag1', LOW_50, { fizz: 'nope' });
      const hi = await variant('flag1', HIGH_50, { fizz: 'nope' });
      expect(lo).toMatchObject({ match: true, reason: 'MATCH_EVALUATION_REASON', variantKey: 'variant1', segmentKeys: ['everyone'] });
      expect(hi).toMatchObject({ match: true, reason: 'MATCH_EVALUATION_REASON', variantKey: 'variant2', segmentKeys: ['everyone'], variantAttachment: '' });
    });

    it('returns the default variant with match:false and DEFAULT when no rule exists', async () => {
      const r = await variant('flag_default_variant', 'user-1');
      expect(r).toMatchObject({ match: false, reason: 'DEFAULT_EVALUATION_REASON', variantKey: 'dv_default', variantAttachment: '{"d":true}', segmentKeys: [] });
    });

    it('returns FLAG_DISABLED with an empty variant for a disabled flag', async () => {
      const r = await variant('flag_disabled', 'user-1');
      expect(r).toMatchObject({ match: false, reason: 'FLAG_DISABLED_EVALUATION_REASON', variantKey: '', variantAttachment: '', segmentKeys: [] });
    });

    it('returns UNKNOWN, empty, with defaults emitted, when nothing matches and there is no default', async () => {
      const r = await variant('flag_any', 'user-1', { age: '17', beta: 'false' });
      expect(Object.keys(r).sort()).toEqual(VARIANT_FIELDS);
      expect(r).toMatchObject({ match: false, reason: 'UNKNOWN_EVALUATION_REASON', variantKey: '', variantAttachment: '', segmentKeys: [] });
    });

    it('matches an ANY segment on either constraint', async () => {
      expect((await variant('flag_any', 'user-1', { age: '18' })).variantKey).toBe('any_match');
      expect((await variant('flag_any', 'user-1', { beta: 'true' })).variantKey).toBe('any_match');
      expect((await variant('flag_any', 'user-1', { age: '30', beta: 'true' })).segmentKeys).toEqual(['segment_any']);
    });

    it('matches entityId and datetime constraints', async () => {
      expect(await variant('flag_entity', 'vip-user')).toMatchObject({ match: true, variantKey: 'vip', segmentKeys: ['segment_entity'] });
      expect(await variant('flag_entity', 'user-1', { signup: '2025-06-01T12:00:00Z' })).toMatchObject({ match: true, variantKey: 'recent', segmentKeys: ['segment_datetime'] });
      expect(await variant('flag_entity', 'user-1', { signup: '2024-12-31T23:59:59Z' })).toMatchObject({ match: false, reason: 'UNKNOWN_EVALUATION_REASON', variantKey: '' });
    });

    it('returns a number-like variant key and a JSON attachment as text', async () => {
      expect((await variant('flag_number', 'user-1')).variantKey).toBe('42');
      const r = await variant('flag_json', 'user-1');
      expect(r.variantKey).toBe('json_variant');
      expect(JSON.parse(r.variantAttachment)).toEqual(JSON_ATTACHMENT);
    });

    it('accepts an empty entityId (no validation on /evaluate/v1)', async () => {
      const r = await variant('flag1', '', { fizz: 'buzz' });
      expect(r).toMatchObject({ match: true, variantKey: 'variant1' });
    });
  });

  describe('evaluation.boolean', () => {
    it('returns the exact shape for a segment rollout match', async () => {
      const r = await boolean('flag_boolean', 'user-1', { fizz: 'buzz' });
      expect(Object.keys(r).sort()).toEqual(BOOLEAN_FIELDS);
      expect(r).toMatchObject({ flagKey: 'flag_boolean', enabled: true, reason: 'MATCH_EVALUATION_REASON', segmentKeys: ['segment1'] });
      expect((r as unknown as { requestId: string }).requestId).toMatch(UUID);
      expect(r.timestamp).toMatch(TIMESTAMP);
    });

    it('runs the threshold rollout of a disabled flag, and falls back to enabled with DEFAULT', async () => {
      expect(await boolean('flag_boolean', UNDER_THRESHOLD)).toMatchObject({ enabled: true, reason: 'MATCH_EVALUATION_REASON', segmentKeys: [] });
      expect(await boolean('flag_boolean', OVER_THRESHOLD)).toMatchObject({ enabled: false, reason: 'DEFAULT_EVALUATION_REASON', segmentKeys: [] });
    });

    it('returns false/MATCH on an entityId segment rollout and the enabled value otherwise', async () => {
      expect(await boolean('flag_boolean_on', 'vip-user')).toMatchObject({ enabled: false, reason: 'MATCH_EVALUATION_REASON', segmentKeys: ['segment_entity'] });
      expect(await boolean('flag_boolean_on', 'user-1')).toMatchObject({ enabled: true, reason: 'DEFAULT_EVALUATION_REASON', segmentKeys: [] });
    });
  });

  describe('evaluation.batch', () => {
    let batch: BatchEvaluationResponse;
    beforeAll(async () => {
      batch = await client.evaluation.batch({
        request_id: 'batch-req-1',
        requests: [
          { namespaceKey: 'default', flagKey: 'flag1', entityId: 'user-1', context: { fizz: 'buzz' } },
          { namespaceKey: 'default', flagKey: 'flag_boolean', entityId: 'user-1', context: { fizz: 'buzz' } },
          { namespaceKey: 'default', flagKey: 'missing', entityId: 'user-1', context: {} },
          { namespaceKey: 'ns1', flagKey: 'flag1', entityId: 'user-1', context: { fizz: 'buzz' } },
          { namespaceKey: 'ns1', flagKey: 'flag_disabled', entityId: 'user-1', context: {} },
        ],
      });
    });

    it('echoes the snake_case request_id as requestId', () => {
      expect(Object.keys(batch).sort()).toEqual(['requestDurationMillis', 'requestId', 'responses']);
      expect(batch.requestId).toBe('batch-req-1');
      expect(typeof batch.requestDurationMillis).toBe('number');
    });

    it('routes each item by flag type, in request order', () => {
      expect(batch.responses.map((r) => r.type)).toEqual([
        'VARIANT_EVALUATION_RESPONSE_TYPE',
        'BOOLEAN_EVALUATION_RESPONSE_TYPE',
        'ERROR_EVALUATION_RESPONSE_TYPE',
        'VARIANT_EVALUATION_RESPONSE_TYPE',
        'VARIANT_EVALUATION_RESPONSE_TYPE',
      ]);
      const [v, b, , ns1, disabled] = batch.responses;
      expect(Object.keys(v).sort()).toEqual(['type', 'variantResponse']);
      expect(Object.keys(b).sort()).toEqual(['booleanResponse', 'type']);
      expect(Object.keys(v.variantResponse!).sort()).toEqual(VARIANT_FIELDS);
      expect(Object.keys(b.booleanResponse!).sort()).toEqual(BOOLEAN_FIELDS);
      expect(v.variantResponse).toMatchObject({ flagKey: 'flag1', match: true, variantKey: 'variant1', reason: 'MATCH_EVALUATION_REASON', segmentKeys: ['segment1'] });
      expect(b.booleanResponse).toMatchObject({ flagKey: 'flag_boolean', enabled: true, reason: 'MATCH_EVALUATION_REASON', segmentKeys: ['segment1'] });
      expect(ns1.variantResponse).toMatchObject({ flagKey: 'flag1', variantKey: 'variant2' });
      expect(disabled.variantResponse).toMatchObject({ match: false, reason: 'FLAG_DISABLED_EVALUATION_REASON', variantKey: '' });
    });

    it('reports an unknown flag as an ERROR item with NOT_FOUND inside the 200', () => {
      expect(batch.responses[2]).toEqual({
        type: 'ERROR_EVALUATION_RESPONSE_TYPE',
        errorResponse: { flagKey: 'missing', namespaceKey: 'default', reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' },
      });
    });

    it('gives items the sub-request id ("") and the batch timestamp', () => {
      const items = batch.responses.flatMap((r) => (r.variantResponse ?? r.booleanResponse ? [(r.variantResponse ?? r.booleanResponse)!] : []));
      expect(items).toHaveLength(4);
      for (const item of items) expect((item as unknown as { requestId: string }).requestId).toBe('');
      expect(new Set(items.map((i) => i.timestamp)).size).toBe(1);
      expect(items[0].timestamp).toMatch(TIMESTAMP);
    });

    it('generates a requestId when none is given, and keeps a raw empty namespaceKey in error items', async () => {
      const r = await client.evaluation.batch({ requests: [{ namespaceKey: '', flagKey: 'missing', entityId: 'e', context: {} }, { namespaceKey: '', flagKey: 'flag_number', entityId: 'e', context: {} }] });
      expect(r.requestId).toMatch(UUID);
      expect(r.responses[0]).toEqual({ type: 'ERROR_EVALUATION_RESPONSE_TYPE', errorResponse: { flagKey: 'missing', namespaceKey: '', reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' } });
      expect(r.responses[1].variantResponse?.variantKey).toBe('42');
    });

    it('was sent by the SDK as text/plain with snake_case request_id, and answered 200', () => {
      const sent = tap.exchanges.find((e) => e.path === '/evaluate/v1/batch' && e.body.includes('batch-req-1'));
      expect(sent).toBeDefined();
      expect(sent!.headers['content-type']).toMatch(/^text\/plain/);
      expect(JSON.parse(sent!.body)).toHaveProperty('request_id', 'batch-req-1');
      expect(JSON.parse(sent!.body)).not.toHaveProperty('requestId');
      expect(sent!.status).toBe(200);
      const single = tap.exchanges.filter((e) => e.path === '/evaluate/v1/variant' || e.path === '/evaluate/v1/boolean');
      expect(single.length).toBeGreaterThan(0);
      for (const e of single) expect(e.headers['content-type']).toMatch(/^text\/plain/);
    });
  });

  describe('flags.listFlags', () => {
    const DEFAULT_KEYS = ['flag1', 'flag_number', 'flag_json', 'flag_default_variant', 'flag_disabled', 'flag_any', 'flag_entity', 'flag_boolean', 'flag_boolean_on'];

    it('lists the default namespace in creation order with the exact flag shape', async () => {
      const res = await client.flags.listFlags('default');
      expect(res.flags.map((f) => f.key)).toEqual(DEFAULT_KEYS);
      expect(res.totalCount).toBe(DEFAULT_KEYS.length);
      expect(res.nextPageToken).toBe('');
      const byKey = new Map<string, Flag>(res.flags.map((f) => [f.key, f]));
      const flag1 = byKey.get('flag1')!;
      expect(flag1).toMatchObject({ key: 'flag1', name: 'flag1', description: 'flag1 flag', enabled: true, namespaceKey: 'default', type: 'VARIANT_FLAG_TYPE' });
      expect(flag1.createdAt).toMatch(TIMESTAMP);
      expect(flag1.updatedAt).toMatch(TIMESTAMP);
      expect(flag1.variants.map((v) => v.key)).toEqual(['variant1', 'variant2']);
      expect(Object.keys(flag1.variants[0]).sort()).toEqual(['attachment', 'createdAt', 'description', 'flagKey', 'id', 'key', 'name', 'namespaceKey', 'updatedAt']);
      expect(flag1.variants[0]).toMatchObject({ key: 'variant1', name: 'variant1', attachment: '{"v":1}', flagKey: 'flag1', namespaceKey: 'default', description: '' });
      expect(byKey.get('flag_boolean')).toMatchObject({ type: 'BOOLEAN_FLAG_TYPE', enabled: false, variants: [] });
      expect(byKey.get('flag_disabled')!.enabled).toBe(false);
      const dv = byKey.get('flag_default_variant') as Flag & { defaultVariant?: { key: string } };
      expect(dv.defaultVariant?.key).toBe('dv_default');
    });

    it('lists ns1 separately', async () => {
      const res = await client.flags.listFlags('ns1');
      expect(res.flags.map((f) => f.key)).toEqual([...DEFAULT_KEYS, 'ns1_only']);
      expect(res.totalCount).toBe(DEFAULT_KEYS.length + 1);
      expect(new Set(res.flags.map((f) => f.namespaceKey))).toEqual(new Set(['ns1']));
    });

    it('pages with limit and pageToken', async () => {
      const first = await client.flags.listFlags('default', { limit: 4 });
      expect(first.flags.map((f) => f.key)).toEqual(DEFAULT_KEYS.slice(0, 4));
      expect(first.nextPageToken).not.toBe('');
      expect(first.totalCount).toBe(DEFAULT_KEYS.length);
      const second = await client.flags.listFlags('default', { limit: 4, pageToken: first.nextPageToken });
      expect(second.flags.map((f) => f.key)).toEqual(DEFAULT_KEYS.slice(4, 8));
      const third = await client.flags.listFlags('default', { limit: 4, pageToken: second.nextPageToken });
      expect(third.flags.map((f) => f.key)).toEqual(DEFAULT_KEYS.slice(8));
      expect(third.nextPageToken).toBe('');
    });
  });

  describe('errors', () => {
    it('rejects with the server message for an unknown flag', async () => {
      await expect(variant('missing', 'user-1')).rejects.toThrow(new Error('flag "default/missing" not found'));
      await expect(boolean('missing', 'user-1', {}, 'ns1')).rejects.toThrow(new Error('flag "ns1/missing" not found'));
    });

    it('rejects with the type error for the wrong endpoint', async () => {
      await expect(variant('flag_boolean', 'user-1')).rejects.toThrow(new Error('flag type BOOLEAN_FLAG_TYPE invalid'));
      await expect(boolean('flag1', 'user-1')).rejects.toThrow(new Error('flag type VARIANT_FLAG_TYPE invalid'));
    });

    it('sends Flipt-shaped JSON error bodies with the mapped status', () => {
      const notFound = tap.exchanges.find((e) => e.path === '/evaluate/v1/variant' && e.body.includes('"missing"'));
      const invalid = tap.exchanges.find((e) => e.path === '/evaluate/v1/variant' && e.body.includes('"flag_boolean"'));
      expect(notFound?.status).toBe(404);
      expect(invalid?.status).toBe(400);
    });

    it('error bodies are grpc-gateway JSON {code,message,details}', async () => {
      const res = await fetch(`${server.url}/evaluate/v1/variant`, { method: 'POST', body: JSON.stringify({ flagKey: 'missing', entityId: 'x' }) });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ code: 5, message: 'flag "default/missing" not found', details: [] });
      const bad = await fetch(`${server.url}/evaluate/v1/boolean`, { method: 'POST', body: JSON.stringify({ flagKey: 'flag1', entityId: 'x' }) });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ code: 3, message: 'flag type VARIANT_FLAG_TYPE invalid', details: [] });
    });
  });
});
