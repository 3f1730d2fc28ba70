import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sampleValue, samples } from '../../support/scrape';
import { expectStatus, useServer, type ApiClient } from '../../support/server';

/**
 * Issue 15, item 1: what clients send never grows the metrics. A namespace or flag that does
 * not exist is counted under one series (namespace and flag "unknown"); the namespaces and
 * namespace/flag pairs that do exist are capped (metrics.max_namespace_series,
 * metrics.max_flag_series). Runs on every back end: a random namespace is looked up in the database.
 */

const random = () => `rnd-${randomBytes(6).toString('hex')}`;
const UNKNOWN = { namespace: 'unknown', flag: 'unknown' };

/** Evaluates `requests` through the batch route, 500 at a time (each item its own namespace and flag). */
async function batches(api: ApiClient, requests: { namespaceKey: string; flagKey: string }[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 500) {
    const body = { requests: requests.slice(i, i + 500).map((r) => ({ ...r, entityId: 'e', context: {} })) };
    const answer = expectStatus(await api.post('/evaluate/v1/batch', body), 200);
    expect(answer.responses).toHaveLength(Math.min(500, requests.length - i));
  }
}

describe('metrics: keys that name nothing', () => {
  const server = useServer();
  beforeAll(async () => {
    expectStatus(await server.api.post('/api/v1/flags', { key: 'real', name: 'Real', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
  });

  it('5,000 evaluations of random namespaces and flags make no series: all are counted under unknown', async () => {
    const before = (await server.api.get('/metrics')).text;
    const requests = [
      ...Array.from({ length: 2500 }, () => ({ namespaceKey: random(), flagKey: random() })), // namespaces that do not exist
      ...Array.from({ length: 2450 }, () => ({ namespaceKey: 'default', flagKey: random() })), // flags that do not exist
    ];
    await batches(server.api, requests);
    // The fast lane and the boolean route report the same way (a 404 each).
    for (let i = 0; i < 25; i++) expect((await server.api.post('/evaluate/v1/variant', { namespaceKey: random(), flagKey: random(), entityId: 'e' })).status).toBe(404);
    for (let i = 0; i < 25; i++) expect((await server.api.post('/evaluate/v1/boolean', { flagKey: random(), entityId: 'e' })).status).toBe(404);
    expectStatus(await server.api.post('/evaluate/v1/boolean', { flagKey: 'real', entityId: 'e' }), 200);

    const after = (await server.api.get('/metrics')).text;
    const delta = (name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(delta('service_evaluations_requests_total', UNKNOWN)).toBe(5000);
    expect(delta('service_evaluations_errors_total', UNKNOWN)).toBe(5000);
    expect(delta('service_evaluations_latency_milliseconds_count', { namespace: 'unknown' })).toBe(5000);
    expect(delta('service_evaluations_requests_total', { namespace: '', flag: 'real' })).toBe(1);
    expect(after).not.toContain('rnd-');
    // One series for all 5,000 (requests, errors, latency's 15 buckets + sum + count), one for the real flag (requests, its result, its namespace's latency).
    const evaluationSamples = samples(after, 'service_evaluations_');
    console.log(`after 5,000 evaluations of random keys: ${evaluationSamples.length} evaluation samples, ${samples(after).length} samples and ${after.length.toLocaleString('en-US')} bytes in all`);
    expect(evaluationSamples.length).toBeLessThanOrEqual(2 * 19 + 1 + 1);
    expect(samples(after).length).toBeLessThan(300); // the process's own metrics and HTTP routes included
  });
});

describe('metrics: caps on the namespaces and flags that exist', () => {
  const server = useServer({ PENNON_METRICS_MAX_NAMESPACE_SERIES: '2', PENNON_METRICS_MAX_FLAG_SERIES: '3' });
  const namespaces = ['ns-a', 'ns-b', 'ns-c', 'ns-d'];
  beforeAll(async () => {
    for (const ns of namespaces) {
      expectStatus(await server.api.post('/api/v1/namespaces', { key: ns, name: ns }), 200);
      for (const flag of ['x', 'y']) expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key: flag, name: flag, type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
    }
  });

  it('past max_namespace_series new namespaces count as __other__; past max_flag_series new flags count as __other__ in their namespace', async () => {
    // In this order: a/x, a/y, b/x take the three flag series, b/y is b's __other__; c and d are past the namespace cap.
    await batches(server.api, namespaces.flatMap((namespaceKey) => ['x', 'y'].map((flagKey) => ({ namespaceKey, flagKey }))));
    const text = (await server.api.get('/metrics')).text;
    const requests = (namespace: string, flag: string) => sampleValue(text, 'service_evaluations_requests_total', { namespace, flag });
    expect([requests('ns-a', 'x'), requests('ns-a', 'y'), requests('ns-b', 'x'), requests('ns-b', '__other__')]).toEqual([1, 1, 1, 1]);
    expect(requests('__other__', '__other__')).toBe(4);
    expect(text).not.toContain('ns-c');
    expect(text).not.toContain('ns-d');
    expect(requests('unknown', 'unknown')).toBe(0); // these flags exist
    expect(samples(text, 'service_evaluations_requests_total')).toHaveLength(5);
  });
});
