import { afterEach, beforeEach, expect, it } from 'vitest';
import { PennonError, systemClock } from '../../../internal/core';
import { openDatabase, prepareSchema, storeFor, type Connection, type SqlStore } from '../../../internal/storage/sql';
import { describeOnExternal } from '../../support/backends';
import { flagInput, oneTo, prng, ruleInput, ruleRanks, segmentInput } from '../../support/store';

/**
 * Several instances on one external database: two Connections (two pools, as two processes
 * have) writing to one flag at once. The namespace-revision row lock serialises them; on the
 * CockroachDB dialect, SERIALIZABLE conflicts (40001) are retried (exercised on PostgreSQL).
 */
const SEED = 0x5eed_0002;
describeOnExternal(['postgres', 'cockroach-on-postgres', 'mysql'], 'two instances on $name', (backend) => {
  let conns: Connection[] = [];
  let stores: SqlStore[] = [];
  let cleanup: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    const db = await backend.create();
    cleanup = db.cleanup;
    conns = [openDatabase(db.url), openDatabase(db.url)];
    await Promise.all(conns.map((c) => prepareSchema(c)));
    stores = conns.map((c) => storeFor(c, systemClock()));
    await stores[0].createFlag('default', flagInput('f'));
    await stores[1].createSegment('default', 'seg', segmentInput());
  });
  afterEach(async () => {
    await Promise.all(conns.map((c) => c.close()));
    await cleanup?.();
  });

  it(`20 concurrent rule creates and reorders through two connections leave ranks 1..n, unique (seed ${SEED})`, async () => {
    const random = prng(SEED);
    const created = await Promise.all(
      oneTo(20).map((i) => stores[i % 2].createRule('default', 'f', 1 + Math.floor(random() * 25), ruleInput('seg'))),
    );
    const ids = created.map((r) => r.id);
    const ops: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      const store = stores[i % 2];
      if (i % 4 === 0) ops.push(store.createRule('default', 'f', 1 + Math.floor(random() * 30), ruleInput('seg')));
      else ops.push(store.orderRules('default', 'f', [...ids].sort(() => random() - 0.5).slice(0, 1 + Math.floor(random() * 20))));
    }
    await Promise.all(ops);
    for (const store of stores) {
      const after = await ruleRanks(store, 'default', 'f');
      expect(after.ranks).toEqual(oneTo(25));
      expect(new Set(after.ids).size).toBe(25);
    }
    // Every write moved the revision once: 1 (created) + 2 (flag, segment) + 20 + 20.
    expect(await stores[1].getRevision('default')).toMatch(/:43$/);
  });
});

describeOnExternal(['cockroach-on-postgres'], 'transaction retries on $name', (backend) => {
  let conns: Connection[] = [];
  let cleanup: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    const db = await backend.create();
    cleanup = db.cleanup;
    conns = [openDatabase(db.url), openDatabase(db.url)];
    await prepareSchema(conns[0]);
  });
  afterEach(async () => {
    await Promise.all(conns.map((c) => c.close()));
    await cleanup?.();
  });

  const createFlags = (stores: SqlStore[], prefix: string) =>
    Promise.allSettled(oneTo(10).map((i) => stores[i % 2].createFlag('default', flagInput(`${prefix}-${i}`))));

  it('concurrent writers under SERIALIZABLE get 40001, and the store retries until every write lands', async () => {
    // Control: the same adapter without retries loses writes here, so the contention is real.
    const noRetry = conns.map((c) => storeFor({ db: c.db, adapter: { ...c.adapter, isRetryable: () => false } }, systemClock()));
    const lost = (await createFlags(noRetry, 'control')).filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.every((o) => o.reason instanceof PennonError)).toBe(true);
    expect(lost.some((o) => o.reason.cause?.code === '40001')).toBe(true);

    const stores = conns.map((c) => storeFor(c, systemClock()));
    const outcomes = await createFlags(stores, 'retried');
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
    expect(stores[0].retries + stores[1].retries).toBeGreaterThan(0);
    const keys = (await stores[0].listFlags('default', { limit: 0, offset: 0 })).items.map((f) => f.key).filter((k) => k.startsWith('retried-'));
    expect(keys).toHaveLength(10);
  });
});
