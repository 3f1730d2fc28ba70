import { describe, expect, it } from 'vitest';
import { PennonError } from '../../../internal/core';
import { backends } from '../../support/backends';
import { flagInput, flagWithSegment, oneTo, prng, rolloutRanks, ruleInput, ruleRanks, useStore } from '../../support/store';

/**
 * Writes to one flag that race each other must still leave ranks dense and unique: every write
 * is serialised per namespace (internal/storage/sql/queries/revision.ts, bumpRevision).
 */
const SEED = 0x5eed_0001;

describe.each(backends())('storage concurrency on $name', (backend) => {
  const t = useStore(backend);

  it(`20 concurrent createRule calls leave ranks 1..20; deletes and orders mixed in keep them dense (seed ${SEED})`, async () => {
    const random = prng(SEED);
    await flagWithSegment(t.store, 'default', 'f');
    // Ranks at the start, in the middle, past the end: every insertion point is exercised.
    const requested = Array.from({ length: 20 }, () => 1 + Math.floor(random() * 25));
    const created = await Promise.all(requested.map((rank) => t.store.createRule('default', 'f', rank, ruleInput('seg'))));
    const after = await ruleRanks(t.store, 'default', 'f');
    expect(after.ranks).toEqual(oneTo(20));
    expect(new Set(after.ids).size).toBe(20);
    expect([...after.ids].sort()).toEqual(created.map((r) => r.id).sort());

    const ids = after.ids;
    const doomed = new Set(ids.filter(() => random() < 0.3).slice(0, 5));
    for (const id of ids) if (doomed.size < 5 && !doomed.has(id)) doomed.add(id);
    const shuffled = () => [...ids].sort(() => random() - 0.5).slice(0, 2 + Math.floor(random() * 10));
    const deletes = [...doomed].map((id) => () => t.store.deleteRule('default', 'f', id));
    const orders = Array.from({ length: 5 }, () => {
      const order = shuffled();
      return () => t.store.orderRules('default', 'f', order);
    });
    // Interleave deletes and orders and start them all at once.
    const ops = deletes.flatMap((d, i) => [d, orders[i]]);
    await Promise.all(ops.map((op) => op()));

    const final = await ruleRanks(t.store, 'default', 'f');
    expect(final.ranks).toEqual(oneTo(15));
    expect(new Set(final.ids).size).toBe(15);
    expect([...final.ids].sort()).toEqual(ids.filter((id) => !doomed.has(id)).sort());
    for (const id of final.ids) expect((await t.store.getRule('default', 'f', id)).rank).toBe(final.ids.indexOf(id) + 1);
  });

  it('creates, deletes and orders racing on one flag keep ranks dense', async () => {
    await flagWithSegment(t.store, 'default', 'f');
    const first = await Promise.all(oneTo(10).map(() => t.store.createRule('default', 'f', 1, ruleInput('seg'))));
    const ops: Promise<unknown>[] = [];
    for (let i = 0; i < 10; i++) {
      ops.push(i % 2 === 0 ? t.store.deleteRule('default', 'f', first[i].id) : t.store.createRule('default', 'f', i, ruleInput('seg')));
      ops.push(t.store.orderRules('default', 'f', [first[9 - i].id, first[i].id]));
    }
    await Promise.all(ops);
    const final = await ruleRanks(t.store, 'default', 'f');
    expect(final.ranks).toEqual(oneTo(10));
    expect(new Set(final.ids).size).toBe(10);
    for (let i = 0; i < 10; i += 2) expect(final.ids).not.toContain(first[i].id);
  });

  it('10 concurrent createRollout calls for the same free rank: exactly one wins', async () => {
    await t.store.createFlag('default', flagInput('b', { type: 'BOOLEAN_FLAG_TYPE' }));
    const outcomes = await Promise.allSettled(
      oneTo(10).map((i) => t.store.createRollout('default', 'b', 1, { description: `${i}`, segment: null, threshold: { percentage: i, value: true } })),
    );
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).toHaveLength(1);
    for (const o of lost) {
      expect(o.reason).toBeInstanceOf(PennonError);
      expect({ kind: (o.reason as PennonError).kind, message: (o.reason as PennonError).message }).toEqual({
        kind: 'invalid',
        message: 'rank number: 1 already exists',
      });
    }
    expect((await rolloutRanks(t.store, 'default', 'b')).ranks).toEqual([1]);

    // Appending concurrently (rank past the end) gives every rollout its own rank.
    await Promise.all(oneTo(9).map(() => t.store.createRollout('default', 'b', 1000, { description: '', segment: null, threshold: { percentage: 1, value: true } })));
    const final = await rolloutRanks(t.store, 'default', 'b');
    expect(final.ranks).toEqual(oneTo(10));
    expect(new Set(final.ids).size).toBe(10);
  });
});
