import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, startServer, useServer, type TestServer } from '../../support/server';

/**
 * Issue 16, item 2: warm before serving. A service loads every namespace's snapshot (or those
 * evaluation.warm_namespaces names) before health says SERVING, so the first evaluation finds
 * its snapshot built instead of waiting for a build. Runs on every back end: a second server
 * starts on the first one's database.
 */
describe('warm start', () => {
  const seeded = useServer();
  const namespaces = ['alpha', 'beta'];
  beforeAll(async () => {
    for (const ns of namespaces) {
      expectStatus(await seeded.api.post('/api/v1/namespaces', { key: ns, name: ns }), 200);
      for (let i = 0; i < 20; i++) expectStatus(await seeded.api.post(`/api/v1/namespaces/${ns}/flags`, { key: `f${i}`, name: `F${i}`, type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
    }
  });
  const started: TestServer[] = [];
  afterAll(async () => {
    for (const server of started) await server.service.stop();
  });

  it('loads every namespace before SERVING; the first evaluations build nothing', async () => {
    const lines: { msg: string; namespaces?: number; flags?: number }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const server = await startServer({ PENNON_DB_URL: seeded.dbUrl }, { logger });
    started.push(server);
    const { snapshots } = server.service.services;
    // default, alpha and beta: built during start-up, logged before the service said it serves.
    expect(snapshots.stats.rebuilds).toBe(3);
    const messages = lines.map((l) => l.msg);
    expect(messages.indexOf('snapshots loaded')).toBeGreaterThanOrEqual(0);
    expect(messages.indexOf('snapshots loaded')).toBeLessThan(messages.indexOf('pennon is serving'));
    expect(lines.find((l) => l.msg === 'snapshots loaded')).toMatchObject({ namespaces: 3, flags: 40 });
    for (const ns of namespaces) expectStatus(await server.api.post('/evaluate/v1/boolean', { namespaceKey: ns, flagKey: 'f7', entityId: 'e' }), 200);
    expect(snapshots.stats.rebuilds).toBe(3);
  });

  it('with evaluation.warm_namespaces, only those: the others build at their first evaluation', async () => {
    const server = await startServer({ PENNON_DB_URL: seeded.dbUrl, PENNON_EVALUATION_WARM_NAMESPACES: 'beta' });
    started.push(server);
    const { snapshots } = server.service.services;
    expect(snapshots.stats.rebuilds).toBe(1);
    expectStatus(await server.api.post('/evaluate/v1/boolean', { namespaceKey: 'beta', flagKey: 'f1', entityId: 'e' }), 200);
    expect(snapshots.stats.rebuilds).toBe(1);
    expectStatus(await server.api.post('/evaluate/v1/boolean', { namespaceKey: 'alpha', flagKey: 'f1', entityId: 'e' }), 200);
    expect(snapshots.stats.rebuilds).toBe(2);
  });
});
