import { afterEach, describe, expect, it } from 'vitest';
import { expectStatus, startServer, type ApiClient, type TestServer } from '../../support/server';
import { OtlpGrpcReceiver, OtlpHttpReceiver, type ReceivedSpan } from '../../support/otlp';

/**
 * Traces (issue 7 item 4): a real server exports to a tiny OTLP receiver on loopback. The
 * server is stopped before the assertions: stopping flushes the batch processor, so what the
 * receiver holds then is everything the server exported.
 */

const SERVER = 2;
const INTERNAL = 1;
const CLIENT = 3;

let counter = 0;
function traceparent(): { header: string; traceId: string; parentId: string } {
  counter += 1;
  const traceId = `4bf92f3577b34da6a3ce929d0e0e${(4700 + counter).toString(16).padStart(4, '0')}`;
  const parentId = `00f067aa0ba9${(0x1000 + counter).toString(16).padStart(4, '0')}`;
  return { header: `00-${traceId}-${parentId}-01`, traceId, parentId };
}

/** A variant flag that matches everyone: enabled, one variant, an all-matching segment, a 100% rule. */
async function seedFlag(api: ApiClient, flag: string): Promise<void> {
  const p = '/api/v1/namespaces/default';
  expectStatus(await api.post(`${p}/flags`, { key: flag, name: flag, type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
  const variant = expectStatus(await api.post(`${p}/flags/${flag}/variants`, { key: 'blue' }), 200).id;
  expectStatus(await api.post(`${p}/segments`, { key: `${flag}-all`, name: 'all', matchType: 'ALL_MATCH_TYPE' }), 200);
  const rule = expectStatus(await api.post(`${p}/flags/${flag}/rules`, { segmentKey: `${flag}-all`, rank: 1 }), 200).id;
  expectStatus(await api.post(`${p}/flags/${flag}/rules/${rule}/distributions`, { variantId: variant, rollout: 100 }), 200);
}

const DB_SYSTEM = { sqlite: 'sqlite', postgres: 'postgresql', mysql: 'mysql', 'cockroach-on-postgres': 'cockroachdb' } as const;

const byTrace = (spans: ReceivedSpan[], traceId: string) => spans.filter((s) => s.traceId === traceId);

describe('tracing over OTLP/HTTP', () => {
  let receiver: OtlpHttpReceiver;
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await receiver.stop();
  });

  it('exports a span per request (parent from traceparent), per evaluation, per query', async () => {
    receiver = await new OtlpHttpReceiver().start();
    server = await startServer({
      PENNON_TRACING_ENABLED: 'true',
      PENNON_TRACING_OTLP_ENDPOINT: receiver.url,
      PENNON_TRACING_OTLP_HEADERS_AUTHORIZATION: 'Bearer k1',
    });
    const backend = server.backend;
    await seedFlag(server.api, 'colour');

    const write = traceparent();
    expectStatus(await server.api.withHeaders({ traceparent: write.header }).post('/api/v1/namespaces/default/flags', { key: 'traced', name: 'traced', type: 'BOOLEAN_FLAG_TYPE' }), 200);
    const dup = traceparent();
    expect((await server.api.withHeaders({ traceparent: dup.header }).post('/api/v1/namespaces/default/flags', { key: 'traced', name: 'traced', type: 'BOOLEAN_FLAG_TYPE' })).status).toBe(400);
    const lane = traceparent();
    const evaluation = { namespaceKey: 'default', flagKey: 'colour', entityId: 'e1', context: {} };
    const laneRes = expectStatus(await server.api.withHeaders({ traceparent: lane.header }).post('/evaluate/v1/variant', evaluation), 200);
    expect(laneRes).toMatchObject({ match: true, variantKey: 'blue' });
    const batch = traceparent();
    expectStatus(await server.api.withHeaders({ traceparent: batch.header }).post('/evaluate/v1/batch', { requests: [evaluation, { ...evaluation, flagKey: 'missing' }] }), 200);
    const missing = traceparent();
    expect((await server.api.withHeaders({ traceparent: missing.header }).post('/evaluate/v1/variant', { ...evaluation, flagKey: 'missing' })).status).toBe(404);
    const ofrep = traceparent();
    expectStatus(await server.api.withHeaders({ traceparent: ofrep.header }).post('/ofrep/v1/evaluate/flags/colour', { context: { targetingKey: 'e1' } }), 200);
    expect((await server.api.get('/api/v1/namespaces/default/flags/nope')).status).toBe(404);
    expect((await server.api.get('/health')).status).toBe(200);
    expect((await server.api.get('/metrics')).status).toBe(200);
    await server.stop();
    server = undefined;

    const spans = receiver.spans;
    expect(receiver.paths.every((p) => p === '/v1/traces')).toBe(true);
    expect(receiver.headers[0].authorization).toBe('Bearer k1');
    expect(spans[0].resource).toMatchObject({ 'service.name': 'pennon', 'service.version': expect.any(String) });

    // The management write: the server span continues the caller's trace; its queries are its children.
    const writeSpans = byTrace(spans, write.traceId);
    const writeServer = writeSpans.find((s) => s.kind === SERVER)!;
    expect(writeServer).toMatchObject({
      name: 'POST /api/v1/namespaces/:namespaceKey/flags',
      parentSpanId: write.parentId,
      attributes: { 'http.request.method': 'POST', 'http.route': '/api/v1/namespaces/:namespaceKey/flags', 'http.response.status_code': 200, 'url.path': '/api/v1/namespaces/default/flags' },
    });
    const queries = writeSpans.filter((s) => s.kind === CLIENT);
    expect(queries.length).toBeGreaterThanOrEqual(2);
    for (const q of queries) {
      expect(q.parentSpanId).toBe(writeServer.spanId);
      expect(q.attributes).toMatchObject({ 'db.system': DB_SYSTEM[backend], 'db.operation.name': expect.stringMatching(/^(SELECT|INSERT|UPDATE|DELETE)$/), 'db.query.text': expect.any(String) });
      // Within the request's span, give or take clock rounding (span times mix Date and performance clocks).
      const skew = 50_000_000n; // 50 ms
      expect(q.startNs >= writeServer.startNs - skew && q.endNs <= writeServer.endNs + skew).toBe(true);
    }
    const insert = queries.find((q) => q.attributes['db.operation.name'] === 'INSERT' && q.attributes['db.collection.name'] === 'flags')!;
    expect(insert.name).toBe('INSERT flags');
    // Placeholders only: the values written never appear in the text.
    expect(insert.attributes['db.query.text']).not.toContain('traced');
    expect(queries.some((q) => q.name === 'UPDATE namespaces')).toBe(true); // the revision bump

    // A query that fails (the unique key) gets an error status: Kysely tells plugins only of
    // results, so it is ended with its request.
    const dupSpans = byTrace(spans, dup.traceId);
    const failed = dupSpans.find((s) => s.name === 'INSERT flags')!;
    expect(failed).toMatchObject({ kind: CLIENT, status: { code: 2, message: expect.stringContaining('the query failed') } });
    expect(failed.parentSpanId).toBe(dupSpans.find((s) => s.kind === SERVER)!.spanId);

    // The fast lane: its path is its route; the evaluation is a child with the result.
    const laneSpans = byTrace(spans, lane.traceId);
    const laneServer = laneSpans.find((s) => s.kind === SERVER)!;
    expect(laneServer).toMatchObject({ name: 'POST /evaluate/v1/variant', parentSpanId: lane.parentId, attributes: { 'http.route': '/evaluate/v1/variant', 'http.response.status_code': 200 } });
    // The snapshot was stale after the writes: the evaluation's reads (SQLite's prepared-statement path) are its request's children.
    const reads = laneSpans.filter((s) => s.kind === CLIENT);
    expect(reads.map((s) => s.name)).toContain('SELECT flags');
    expect(reads.every((s) => s.parentSpanId === laneServer.spanId && (s.status.code ?? 0) === 0)).toBe(true);
    const laneEval = laneSpans.find((s) => s.name === 'evaluation.variant')!;
    expect(laneEval).toMatchObject({
      kind: INTERNAL,
      parentSpanId: laneServer.spanId,
      attributes: {
        'feature_flag.key': 'colour',
        'feature_flag.provider_name': 'pennon',
        'feature_flag.variant': 'blue',
        'flipt.namespace': 'default',
        'flipt.match': true,
        'flipt.reason': 'MATCH_EVALUATION_REASON',
        'flipt.segments': ['colour-all'],
      },
    });
    expect(laneEval.startNs >= laneServer.startNs && laneEval.endNs <= laneServer.endNs).toBe(true);

    // Through Fastify (batch): one evaluation span per item, the failed one with an error status.
    const batchSpans = byTrace(spans, batch.traceId);
    const batchServer = batchSpans.find((s) => s.kind === SERVER)!;
    expect(batchServer).toMatchObject({ name: 'POST /evaluate/v1/batch', parentSpanId: batch.parentId });
    const batchEvals = batchSpans.filter((s) => s.name.startsWith('evaluation.'));
    expect(batchEvals.map((s) => s.attributes['feature_flag.key']).sort()).toEqual(['colour', 'missing']);
    for (const span of batchEvals) expect(span.parentSpanId).toBe(batchServer.spanId);
    expect(batchEvals.find((s) => s.attributes['feature_flag.key'] === 'missing')).toMatchObject({ attributes: { 'error.type': 'not_found' }, status: { code: 2 } });

    // A failed evaluation (flag not found): an error status on the evaluation span, none on the
    // server span (a 404 is the client's error).
    const missingSpans = byTrace(spans, missing.traceId);
    expect(missingSpans.find((s) => s.kind === SERVER)).toMatchObject({ attributes: { 'http.response.status_code': 404 }, status: {} });
    expect(missingSpans.find((s) => s.name === 'evaluation.variant')).toMatchObject({
      attributes: { 'feature_flag.key': 'missing', 'error.type': 'not_found' },
      status: { code: 2, message: expect.stringContaining('missing') },
    });

    const ofrepSpans = byTrace(spans, ofrep.traceId);
    expect(ofrepSpans.find((s) => s.kind === SERVER)).toMatchObject({ name: 'POST /ofrep/v1/evaluate/flags/:key', parentSpanId: ofrep.parentId });
    expect(ofrepSpans.find((s) => s.name === 'evaluation.variant')?.attributes['flipt.match']).toBe(true);

    // No traceparent: a new trace (a root span); unmatched lookups are named by pattern, not path.
    const known = new Set([write.traceId, lane.traceId, batch.traceId, ofrep.traceId]);
    const notFound = spans.find((s) => s.kind === SERVER && s.attributes['url.path'] === '/api/v1/namespaces/default/flags/nope')!;
    expect(known.has(notFound.traceId)).toBe(false);
    expect(notFound).toMatchObject({ parentSpanId: '', name: 'GET /api/v1/namespaces/:namespaceKey/flags/:key', attributes: { 'http.response.status_code': 404 } });
    expect(notFound.status.code ?? 0).toBe(0); // 4xx is the client's error, not the server's
    // Health probes and metric scrapes make no traces.
    expect(spans.filter((s) => s.attributes['url.path'] === '/health' || s.attributes['url.path'] === '/metrics')).toEqual([]);
  });

  it('sampling_ratio 0 exports no spans for new traces', async () => {
    receiver = await new OtlpHttpReceiver().start();
    server = await startServer({ PENNON_TRACING_ENABLED: 'true', PENNON_TRACING_OTLP_ENDPOINT: receiver.url, PENNON_TRACING_SAMPLING_RATIO: '0' });
    await seedFlag(server.api, 'colour');
    expectStatus(await server.api.post('/evaluate/v1/variant', { flagKey: 'colour', entityId: 'e1' }), 200);
    await server.stop();
    server = undefined;
    expect(receiver.spans).toEqual([]);
  });

  it('tracing disabled: no spans and not even a connection to the collector', async () => {
    receiver = await new OtlpHttpReceiver().start();
    server = await startServer({ PENNON_TRACING_OTLP_ENDPOINT: receiver.url });
    await seedFlag(server.api, 'colour');
    expectStatus(await server.api.withHeaders({ traceparent: traceparent().header }).post('/evaluate/v1/variant', { flagKey: 'colour', entityId: 'e1' }), 200);
    await server.stop();
    server = undefined;
    expect(receiver.connections).toBe(0);
  });

  it('propagators [none]: an incoming traceparent is ignored', async () => {
    receiver = await new OtlpHttpReceiver().start();
    server = await startServer({ PENNON_TRACING_ENABLED: 'true', PENNON_TRACING_OTLP_ENDPOINT: receiver.url, PENNON_TRACING_PROPAGATORS: 'none' });
    const t = traceparent();
    expectStatus(await server.api.withHeaders({ traceparent: t.header }).get('/api/v1/namespaces'), 200);
    await server.stop();
    server = undefined;
    const span = receiver.spans.find((s) => s.kind === SERVER && s.name === 'GET /api/v1/namespaces')!;
    expect(span.traceId).not.toBe(t.traceId);
    expect(span.parentSpanId).toBe('');
  });
});

describe('tracing over OTLP/gRPC', () => {
  it('exports to grpc://host:port with the configured headers as metadata', async () => {
    const receiver = await new OtlpGrpcReceiver().start();
    const server = await startServer({
      PENNON_TRACING_ENABLED: 'true',
      PENNON_TRACING_OTLP_ENDPOINT: `grpc://${receiver.address}`,
      PENNON_TRACING_OTLP_HEADERS_AUTHORIZATION: 'Bearer k2',
    });
    try {
      await seedFlag(server.api, 'colour');
      const t = traceparent();
      expectStatus(await server.api.withHeaders({ traceparent: t.header }).post('/evaluate/v1/variant', { flagKey: 'colour', entityId: 'e1' }), 200);
      await server.stop();
      const all = Buffer.concat(receiver.requests);
      // Protobuf keeps bytes and strings verbatim: the trace id from traceparent, the span names.
      expect(all.includes(Buffer.from(t.traceId, 'hex'))).toBe(true);
      expect(all.includes(Buffer.from(t.parentId, 'hex'))).toBe(true);
      for (const text of ['POST /evaluate/v1/variant', 'evaluation.variant', 'feature_flag.key', 'colour', 'pennon']) expect(all.includes(Buffer.from(text))).toBe(true);
      expect(receiver.metadata[0].get('authorization')).toEqual(['Bearer k2']);
    } finally {
      await server.stop();
      await receiver.stop();
    }
  });
});
