import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiResponse, type TestServer } from '../../support/server';
import { loadEvaluations, seedThroughApi } from '../../support/vectors';

/**
 * The evaluation fast lane (internal/server/fast-lane.ts) answers /evaluate/v1/variant and
 * /boolean before Fastify. With access logging on it is off, and Fastify's routes answer. The
 * two must be indistinguishable: same statuses, same bodies (apart from ids and times).
 */
const dataset = loadEvaluations().datasets.readonly;

function comparable(res: ApiResponse): unknown {
  if (res.body === undefined) return { status: res.status, text: res.text };
  const { requestId: _r, requestDurationMillis: _d, timestamp: _t, ...rest } = res.body;
  // Internal-error messages carry the request id; everything else must match exactly.
  if (typeof rest.message === 'string') rest.message = rest.message.replace(/request id [^)]+/, 'request id <id>');
  return { status: res.status, contentType: res.headers.get('content-type'), body: rest };
}

describe('evaluation fast lane vs Fastify routes', () => {
  let lane: TestServer;
  let fastify: TestServer;
  beforeAll(async () => {
    lane = await startServer();
    fastify = await startServer({ PENNON_LOG_ACCESS: 'true' });
    await seedThroughApi(lane.api, dataset.namespace, dataset);
    await seedThroughApi(fastify.api, dataset.namespace, dataset);
  });
  afterAll(async () => {
    await lane.stop();
    await fastify.stop();
  });

  const flags = dataset.flags.map((f) => f.key);
  const bodies: [string, string, unknown][] = [];
  for (const flagKey of [...flags, 'missing-flag']) {
    for (const entityId of ['some-fixed-entity-id', 'user@flipt.io', 'fixed', '', 'jürgen-🚀']) {
      for (const context of [{}, { in_segment: 'segment_001' }, { in_segment: 'segment_005', anding: 'something' }]) {
        bodies.push(['variant', `${flagKey} ${entityId} ${JSON.stringify(context)}`, { flagKey, entityId, context, namespaceKey: 'default' }]);
        bodies.push(['boolean', `${flagKey} ${entityId} ${JSON.stringify(context)}`, { flagKey, entityId, context }]);
      }
    }
  }

  it(`answers ${bodies.length} evaluations identically`, async () => {
    for (const [kind, label, body] of bodies) {
      const a = await lane.api.post(`/evaluate/v1/${kind}`, body);
      const b = await fastify.api.post(`/evaluate/v1/${kind}`, body);
      expect(comparable(a), `${kind} ${label}`).toEqual(comparable(b));
    }
  });

  const odd: [string, string | Buffer, Record<string, string>][] = [
    ['malformed JSON', '{"flagKey": ', {}],
    ['a JSON list', '[1,2]', {}],
    ['a wrong field type', '{"flagKey": 5}', {}],
    ['a non-string context value', '{"flagKey": "flag_001", "context": {"a": {"b": 1}}}', {}],
    ['an empty body', '', {}],
    ['text/plain', JSON.stringify({ flagKey: 'flag_001', entityId: 'x' }), { 'content-type': 'text/plain;charset=UTF-8' }],
    ['no content type', JSON.stringify({ flagKey: 'flag_001', entityId: 'x' }), {}],
    ['snake_case fields', JSON.stringify({ flag_key: 'flag_001', entity_id: 'x', namespace_key: 'default', request_id: 'r1' }), {}],
    ['prototype poisoning', '{"flagKey": "flag_001", "__proto__": {"x": 1}}', {}],
    ['a body over 1 MiB', JSON.stringify({ flagKey: 'flag_001', pad: 'x'.repeat(1024 * 1024 + 10) }), {}],
  ];

  it.each(odd)('answers %s identically', async (_label, body, headers) => {
    for (const kind of ['variant', 'boolean']) {
      const a = await lane.api.request('POST', `/evaluate/v1/${kind}`, body, headers);
      const b = await fastify.api.request('POST', `/evaluate/v1/${kind}`, body, headers);
      expect(a.status).toBeLessThan(500);
      expect(comparable(a)).toEqual(comparable(b));
    }
  });

  it('lets a trailing slash and a query string through to the same answer', async () => {
    const body = { flagKey: 'flag_001', entityId: 'some-fixed-entity-id', context: { in_segment: 'segment_005' } };
    const plain = comparable(await lane.api.post('/evaluate/v1/variant', body));
    expect(comparable(await lane.api.post('/evaluate/v1/variant/', body))).toEqual(plain);
    expect(comparable(await lane.api.post('/evaluate/v1/variant?x=1', body))).toEqual(plain);
    expect((plain as { body: { variantKey: string } }).body.variantKey).toBe('variant_002');
  });

  it('echoes a request id and marks errors with X-Request-Id', async () => {
    const ok = await lane.api.post('/evaluate/v1/variant', { flagKey: 'flag_001', requestId: 'mine' });
    expect(ok.body.requestId).toBe('mine');
    const missing = await lane.api.request('POST', '/evaluate/v1/variant', { flagKey: 'nope' }, { 'x-request-id': 'trace-123' });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toBe('trace-123');
    const generated = await lane.api.post('/evaluate/v1/variant', { flagKey: 'nope' });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  });
});
