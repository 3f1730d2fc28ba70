import { describe, expect, it } from 'vitest';
import { useServer, type ApiResponse } from '../../support/server';

/**
 * A namespace key no database row can have — a NUL character, which PostgreSQL refuses to
 * compare at all — on every evaluation surface: answered as a namespace that does not exist,
 * or refused as bad input (400) where the database refuses the value; never the 503 that
 * means the store is down. Runs on every configured back end.
 */
describe('evaluation with a namespace key holding a NUL character', () => {
  const server = useServer();

  const surfaces: [string, (ns: string) => Promise<ApiResponse>][] = [
    ['/evaluate/v1/variant', (ns) => server.api.post('/evaluate/v1/variant', { namespaceKey: ns, flagKey: 'f', entityId: 'e' })],
    ['/evaluate/v1/boolean', (ns) => server.api.post('/evaluate/v1/boolean', { namespaceKey: ns, flagKey: 'f', entityId: 'e' })],
    ['/evaluate/v1/batch', (ns) => server.api.post('/evaluate/v1/batch', { requests: [{ namespaceKey: ns, flagKey: 'f', entityId: 'e' }] })],
    ['/api/v1/evaluate', (ns) => server.api.post('/api/v1/evaluate', { namespaceKey: ns, flagKey: 'f', entityId: 'e' })],
    ['/api/v1/batch-evaluate', (ns) => server.api.post('/api/v1/batch-evaluate', { namespaceKey: ns, requests: [{ flagKey: 'f', entityId: 'e' }] })],
    ['client snapshot', (ns) => server.api.get(`/internal/v1/evaluation/snapshot/namespace/${encodeURIComponent(ns)}`)],
  ];

  it.each(surfaces)('%s: as a missing namespace, or a 400', async (_, call) => {
    const res = await call('a\u0000b');
    const absent = await call('absent');
    if (res.status === 400) expect(res.body).toEqual({ code: 3, message: expect.any(String), details: [] });
    else expect(res.status, res.text).toBe(absent.status);
    // The instance is still healthy: nothing took the value for an outage.
    expect((await server.api.get('/health')).body).toEqual({ status: 'SERVING' });
  });
});
