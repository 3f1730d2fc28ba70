import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, startServer, type TestServer } from '../../support/server';

/**
 * The evaluation tier of a read/write split: a second instance on the same database with
 * `storage.read_only: true` answers reads and evaluations, and refuses every flag-state write
 * with Flipt's read-only error (500, code 13) — after validation, as Flipt does.
 */
describe('storage.read_only', () => {
  let writer: TestServer;
  let reader: TestServer;

  beforeAll(async () => {
    writer = await startServer({ PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true' });
    const api = writer.api;
    expectStatus(await api.post('/api/v1/namespaces', { key: 'ro', name: 'RO' }), 200);
    expectStatus(await api.post('/api/v1/namespaces/ro/flags', { key: 'f', name: 'F', enabled: true }), 200);
    const variant = expectStatus(await api.post('/api/v1/namespaces/ro/flags/f/variants', { key: 'on' }), 200);
    expectStatus(await api.post('/api/v1/namespaces/ro/segments', { key: 'all', name: 'All', matchType: 'ALL_MATCH_TYPE' }), 200);
    const rule = expectStatus(await api.post('/api/v1/namespaces/ro/flags/f/rules', { segmentKey: 'all', rank: 1 }), 200);
    expectStatus(await api.post(`/api/v1/namespaces/ro/flags/f/rules/${rule.id}/distributions`, { variantId: variant.id, rollout: 100 }), 200);
    reader = await startServer({
      PENNON_DB_URL: writer.config.db.url || `file:${join(writer.dir, 'pennon.db')}`,
      PENNON_STORAGE_READ_ONLY: 'true',
      PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
    });
  });
  afterAll(async () => {
    await reader?.stop();
    await writer?.stop();
  });

  it('reports itself read-only in /meta/info; a writable instance leaves the field out', async () => {
    const info = expectStatus(await reader.api.get('/meta/info'), 200);
    expect(info.storage).toEqual({ type: 'database', readOnly: true });
    expect(info).toMatchObject({ authentication: { required: false }, updateAvailable: false, os: process.platform });
    expect(typeof info.version).toBe('string');
    expect(expectStatus(await writer.api.get('/meta/info'), 200).storage).toEqual({ type: 'database' });
  });

  it('serves reads and evaluations', async () => {
    expect(expectStatus(await reader.api.get('/api/v1/namespaces/ro/flags/f'), 200)).toMatchObject({ key: 'f', enabled: true });
    expect(expectStatus(await reader.api.get('/api/v1/namespaces/ro/segments'), 200).segments).toHaveLength(1);
    const answer = expectStatus(await reader.api.post('/evaluate/v1/variant', { namespaceKey: 'ro', flagKey: 'f', entityId: 'e1', context: {} }), 200);
    expect(answer).toMatchObject({ match: true, variantKey: 'on' });
  });

  const writes: [string, string, unknown][] = [
    ['POST', '/api/v1/namespaces', { key: 'x', name: 'X' }],
    ['PUT', '/api/v1/namespaces/ro', { name: 'renamed' }],
    ['DELETE', '/api/v1/namespaces/ro', undefined],
    ['POST', '/api/v1/namespaces/ro/flags', { key: 'g', name: 'G' }],
    ['PUT', '/api/v1/namespaces/ro/flags/f', { name: 'F2' }],
    ['DELETE', '/api/v1/namespaces/ro/flags/f', undefined],
    ['POST', '/api/v1/namespaces/ro/flags/f/variants', { key: 'off' }],
    ['POST', '/api/v1/namespaces/ro/segments', { key: 's2', name: 'S2' }],
    ['DELETE', '/api/v1/namespaces/ro/segments/all', undefined],
    ['POST', '/api/v1/namespaces/ro/segments/all/constraints', { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' }],
    ['POST', '/api/v1/namespaces/ro/flags/f/rules', { segmentKey: 'all', rank: 2 }],
    ['POST', '/api/v1/namespaces/ro/flags/f/rollouts', { rank: 1, threshold: { percentage: 50, value: true } }],
    ['PUT', '/api/v1/flags/f', { name: 'legacy family' }],
  ];

  it.each(writes)('refuses %s %s with the read-only error and changes nothing', async (method, path, body) => {
    const res = await reader.api.request(method, path, body);
    expect(res.status, res.text).toBe(500);
    expect(res.body).toMatchObject({ code: 13, message: 'modification is not allowed in read-only mode' });
  });

  it('validates before refusing, as Flipt does', async () => {
    const res = await reader.api.post('/api/v1/namespaces/ro/flags', { key: '', name: 'G' });
    expect(res.status).toBe(400);
  });

  it('left the data as it was', async () => {
    const flag = expectStatus(await writer.api.get('/api/v1/namespaces/ro/flags/f'), 200);
    expect(flag).toMatchObject({ name: 'F', variants: [{ key: 'on' }] });
    expect(expectStatus(await writer.api.get('/api/v1/namespaces'), 200).namespaces.map((n: { key: string }) => n.key)).toEqual(['default', 'ro']);
  });

  it('still manages API tokens (they are not flag state, as in Flipt)', async () => {
    const created = expectStatus(await reader.api.post('/auth/v1/method/token', { name: 'ci' }), 200);
    expect(created.clientToken).toMatch(/.{20,}/);
  });
});
