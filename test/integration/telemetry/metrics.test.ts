import { beforeAll, describe, expect, it } from 'vitest';
import { backend, POSTGRES_URL, unless } from '../../support/backends';
import { sampleValue } from '../../support/scrape';
import { expectStatus, startServer, useServer, type TestServer } from '../../support/server';

/** Scrape, evaluate, scrape again: the counters moved, with Flipt's labels, under the configured prefix. */

const value = sampleValue;

async function seed(server: TestServer): Promise<void> {
  const api = server.api;
  expectStatus(await api.post('/api/v1/flags', { key: 'colour', name: 'Colour', enabled: true }), 200);
  const v = expectStatus(await api.post('/api/v1/flags/colour/variants', { key: 'blue' }), 200);
  expectStatus(await api.post('/api/v1/segments', { key: 'all', name: 'All', matchType: 'ALL_MATCH_TYPE' }), 200);
  const rule = expectStatus(await api.post('/api/v1/flags/colour/rules', { segmentKey: 'all', rank: 1 }), 200);
  expectStatus(await api.post(`/api/v1/flags/colour/rules/${rule.id}/distributions`, { variantId: v.id, rollout: 100 }), 200);
  expectStatus(await api.post('/api/v1/flags', { key: 'switch', name: 'Switch', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
}

describe('/metrics', () => {
  const server = useServer();
  beforeAll(async () => {
    await seed(server);
  });

  const scrape = async () => {
    const res = await server.api.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
  };

  it('serves the process and Node.js metrics', async () => {
    const text = await scrape();
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('counts evaluations on every path, with Flipt’s labels', async () => {
    const before = await scrape();
    const api = server.api;
    for (let i = 0; i < 3; i++) expectStatus(await api.post('/evaluate/v1/variant', { flagKey: 'colour', entityId: `e${i}`, context: {} }), 200); // the fast lane
    // Fastify; a flag the batch does not find is an error item, and counted as an evaluation error (under `unknown`)
    expectStatus(await api.post('/evaluate/v1/batch', { requests: [{ flagKey: 'switch', entityId: 'e', context: {} }, { flagKey: 'absent', entityId: 'e', context: {} }] }), 200);
    expectStatus(await api.post('/ofrep/v1/evaluate/flags/colour', { context: { targetingKey: 'x' } }), 200);
    expect((await api.post('/evaluate/v1/variant', { flagKey: 'missing', entityId: 'e', context: {} })).status).toBe(404);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);

    expect(delta('service_evaluations_requests_total', { namespace: '', flag: 'colour' })).toBe(3);
    expect(delta('service_evaluations_requests_total', { namespace: 'default', flag: 'colour' })).toBe(1); // OFREP names the namespace
    expect(delta('service_evaluations_requests_total', { namespace: '', flag: 'switch' })).toBe(1);
    expect(
      delta('service_evaluations_results_total', { namespace: '', flag: 'colour', match: 'true', segment: 'all', reason: 'MATCH_EVALUATION_REASON', value: 'blue', type: 'variant' }),
    ).toBe(3);
    expect(delta('service_evaluations_results_total', { namespace: '', flag: 'switch', value: 'true', reason: 'DEFAULT_EVALUATION_REASON', type: 'boolean' })).toBe(1);
    // Flags that do not exist make no series of their own: one `unknown` series counts them (issue 15).
    expect(delta('service_evaluations_errors_total', { namespace: 'unknown', flag: 'unknown' })).toBe(2);
    expect(after).not.toMatch(/flag="(missing|absent)"/);
    // Latency per namespace (as the request named it): colour's 3 and switch's 1; the OFREP one under "default".
    expect(delta('service_evaluations_latency_milliseconds_count', { namespace: '' })).toBe(4);
    expect(delta('service_evaluations_latency_milliseconds_count', { namespace: 'default' })).toBe(1);
    // Every observation lands in a bucket (which one depends on the machine's load: not asserted).
    expect(delta('service_evaluations_latency_milliseconds_bucket', { namespace: '', le: '+Inf' })).toBe(4);
  });

  it('counts HTTP requests by route pattern, never by raw path', async () => {
    const before = await scrape();
    expectStatus(await server.api.get('/api/v1/namespaces/default/flags/colour'), 200);
    expectStatus(await server.api.get('/api/v1/namespaces/default/flags/switch'), 200);
    expect((await server.api.get('/no/such/path/12345')).status).toBe(404);
    expectStatus(await server.api.post('/evaluate/v1/boolean', { flagKey: 'switch', entityId: 'e', context: {} }), 200);
    const after = await scrape();
    const delta = (labels: Record<string, string>) => value(after, 'service_http_requests_total', labels) - value(before, 'service_http_requests_total', labels);
    expect(delta({ method: 'GET', route: '/api/v1/namespaces/:namespaceKey/flags/:key', status: '200' })).toBe(2);
    expect(delta({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(delta({ method: 'POST', route: '/evaluate/v1/boolean', status: '200' })).toBe(1);
    expect(after).not.toContain('12345');
    expect(after).not.toContain('flags/colour"');
    expect(value(after, 'service_http_request_duration_seconds_count', { method: 'POST', route: '/evaluate/v1/boolean', status: '200' })).toBeGreaterThan(0);
    expect(value(after, 'service_server_errors_total', {})).toBeGreaterThan(value(before, 'service_server_errors_total', {}));
  });
});

describe('metrics settings', () => {
  it('metrics.namespace renames every Pennon metric (flipt keeps Flipt dashboards working)', async () => {
    const server = await startServer({ PENNON_METRICS_NAMESPACE: 'flipt' });
    try {
      await seed(server);
      expectStatus(await server.api.post('/evaluate/v1/variant', { flagKey: 'colour', entityId: 'e', context: {} }), 200);
      const text = (await server.api.get('/metrics')).text;
      expect(value(text, 'flipt_evaluations_requests_total', { namespace: '', flag: 'colour' })).toBe(1);
      expect(text).not.toMatch(/^service_/m);
    } finally {
      await server.stop();
    }
  });

  it('metrics.enabled: false removes the endpoint', async () => {
    const server = await startServer({ PENNON_METRICS_ENABLED: 'false' });
    try {
      expect((await server.api.get('/metrics')).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it.skipIf(POSTGRES_URL === '')(unless('reports the database pool', { PENNON_TEST_POSTGRES_URL: POSTGRES_URL }), async () => {
    const db = await backend('postgres').create();
    const server = await startServer({ PENNON_DB_URL: db.url });
    try {
      expectStatus(await server.api.get('/api/v1/namespaces'), 200);
      const text = (await server.api.get('/metrics')).text;
      expect(value(text, 'service_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
      expect(text).toMatch(/^service_db_pool_connections\{state="idle"\} \d+/m);
      expect(text).toMatch(/^service_db_pool_connections\{state="waiting"\} 0/m);
    } finally {
      await server.stop();
      await db.cleanup();
    }
  });
});
