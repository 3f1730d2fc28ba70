import { beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, useServer } from '../../support/server';

/**
 * Evaluations read a compiled snapshot; these tests hold it to its promises: a write is seen
 * by the very next evaluation on the same instance, and a snapshot is never a mix of two
 * states (it is read in one transaction and swapped in whole).
 */
describe('snapshot freshness', () => {
  const server = useServer();
  const p = '/api/v1/namespaces/default';
  let variants: string[] = [];

  beforeAll(async () => {
    expectStatus(await server.api.post(`${p}/flags`, { key: 'fresh', name: 'Fresh', enabled: false }), 200);
    for (let i = 0; i < 5; i++) {
      variants.push(expectStatus(await server.api.post(`${p}/flags/fresh/variants`, { key: `v${i}` }), 200).id);
    }
    expectStatus(await server.api.post(`${p}/segments`, { key: 'everyone', name: 'Everyone' }), 200);
    expectStatus(await server.api.post(`${p}/flags`, { key: 'swap', name: 'Swap', enabled: true }), 200);
    for (const key of ['a', 'b']) expectStatus(await server.api.post(`${p}/flags/swap/variants`, { key }), 200);
  });

  it('shows every write to the very next evaluation (read-your-writes)', async () => {
    for (let i = 0; i < 40; i++) {
      const index = i % variants.length;
      // A disabled flag answers its default variant: the value just written.
      expectStatus(await server.api.put(`${p}/flags/fresh`, { name: 'Fresh', enabled: false, defaultVariantId: variants[index] }), 200);
      const answer = expectStatus(await server.api.post('/evaluate/v1/variant', { flagKey: 'fresh', entityId: `e${i}` }), 200);
      expect(answer.variantKey).toBe(`v${index}`);
      expect(answer.reason).toBe('FLAG_DISABLED_EVALUATION_REASON');
    }
  });

  it('sees a created flag at once, and a deleted one is gone at once', async () => {
    for (let i = 0; i < 10; i++) {
      const key = `ephemeral-${i}`;
      expectStatus(await server.api.post(`${p}/flags`, { key, name: key, type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
      expect(expectStatus(await server.api.post('/evaluate/v1/boolean', { flagKey: key }), 200).enabled).toBe(true);
      expectStatus(await server.api.delete(`${p}/flags/${key}`), 200);
      expect((await server.api.post('/evaluate/v1/boolean', { flagKey: key })).status).toBe(404);
    }
  });

  it('never serves a half-applied transaction while writes and evaluations race', async () => {
    const store = server.service.store;
    const flag = await store.getFlag('default', 'swap');
    const byKey = new Map(flag.variants.map((v) => [v.key, v.id]));
    // One transaction replaces the flag's only rule: in between, the flag has no rule at all.
    const point = (variant: string) =>
      store.transaction(async (tx) => {
        for (const rule of (await tx.listRules('default', 'swap', { limit: 0, offset: 0 })).items) await tx.deleteRule('default', 'swap', rule.id);
        const rule = await tx.createRule('default', 'swap', 1, { segmentKeys: ['everyone'], segmentOperator: 'OR_SEGMENT_OPERATOR' });
        await tx.createDistribution('default', 'swap', rule.id, { variantId: byKey.get(variant)!, rollout: 100 });
      });
    await point('a');

    // Each round starts a write and a volley of evaluations together, so they interleave.
    const seen = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const evaluations = Array.from({ length: 10 }, (_, j) => server.api.post('/evaluate/v1/variant', { flagKey: 'swap', entityId: `race-${i}-${j}` }));
      const [, ...answers] = await Promise.all([point(i % 2 === 0 ? 'b' : 'a'), ...evaluations]);
      for (const res of answers) {
        const body = expectStatus(res, 200);
        const label = body.match ? body.variantKey : 'NO MATCH (torn snapshot)';
        seen.set(label, (seen.get(label) ?? 0) + 1);
      }
    }

    expect(seen.has('NO MATCH (torn snapshot)')).toBe(false);
    expect(seen.get('a')).toBeGreaterThan(0);
    expect(seen.get('b')).toBeGreaterThan(0);
    expect((seen.get('a') ?? 0) + (seen.get('b') ?? 0)).toBe(400);
  });
});
