import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../internal/core';
import { compileNamespace, type CompiledNamespace } from '../../../internal/evaluation';
import { snapshotSlices } from '../../../internal/server/routes/snapshot-json';
import { SnapshotCache } from '../../../internal/snapshots';
import { openDatabase, prepareSchema, storeFor, type Connection, type Store } from '../../../internal/storage';
import { silentLogger } from '../../../internal/telemetry';
import { until } from '../../support/wait';
import { seededRandom } from '../../support/seeded';

/**
 * The snapshot cache patches a namespace after a local write instead of rebuilding it. The
 * property that matters: a patched snapshot is exactly what a full rebuild would give. A
 * seeded random sequence of writes checks it after every step.
 */

/** Everything a snapshot holds that clients can see, as one string. */
const shape = (s: CompiledNamespace) => [...snapshotSlices(s, '1.47.0', 100)].join('');


describe('SnapshotCache: patches after local writes equal full rebuilds', () => {
  let dir: string;
  let conn: Connection;
  let store: Store;
  let cache: SnapshotCache;
  const ns = 'default';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pennon-cache-'));
    conn = openDatabase(`file:${join(dir, 'db.sqlite')}`);
    await prepareSchema(conn);
    store = storeFor(conn, systemClock());
    cache = new SnapshotCache(store, { pollInterval: 0, logger: silentLogger() });
    store.onChange((change) => cache.apply(change));
  });
  afterAll(async () => {
    await conn.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function expectFresh(step: string) {
    const cached = await cache.get(ns);
    const rebuilt = compileNamespace((await store.loadNamespace(ns))!);
    expect(cached.revision, step).toBe(rebuilt.revision);
    expect(shape(cached), step).toBe(shape(rebuilt));
  }

  it('keeps every snapshot equal to a rebuild across 150 random writes, mostly by patching', async () => {
    const rand = seededRandom(20261122);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
    for (const k of ['s1', 's2', 's3']) {
      await store.createSegment(ns, k, { name: k, description: '', matchType: 'ALL_MATCH_TYPE' });
      await store.createConstraint(ns, k, { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: k, description: '' });
    }
    await cache.get(ns);
    const before = { ...cache.stats };
    let flagCount = 0;

    for (let step = 0; step < 150; step++) {
      const flags = (await store.listFlags(ns, { limit: 0, offset: 0 })).items;
      const variantFlags = flags.filter((f) => f.type === 'VARIANT_FLAG_TYPE');
      const booleanFlags = flags.filter((f) => f.type === 'BOOLEAN_FLAG_TYPE');
      const action = flags.length < 3 ? 0 : Math.floor(rand() * 9);
      let label = '';
      if (action === 0) {
        const key = `f${flagCount++}`;
        const type = rand() < 0.5 ? 'VARIANT_FLAG_TYPE' : 'BOOLEAN_FLAG_TYPE';
        await store.createFlag(ns, { key, name: key, description: '', enabled: rand() < 0.7, type, metadata: null });
        label = `create ${key}`;
      } else if (action === 1 && variantFlags.length > 0) {
        const f = pick(variantFlags);
        await store.createVariant(ns, f.key, { key: `v${step}`, name: '', description: '', attachment: rand() < 0.5 ? '' : `{"s":${step}}` });
        label = `variant on ${f.key}`;
      } else if (action === 2 && variantFlags.some((f) => f.variants.length > 0)) {
        const f = pick(variantFlags.filter((x) => x.variants.length > 0));
        const rule = await store.createRule(ns, f.key, 1 + Math.floor(rand() * 3), { segmentKeys: [pick(['s1', 's2', 's3'])], segmentOperator: 'OR_SEGMENT_OPERATOR' });
        await store.createDistribution(ns, f.key, rule.id, { variantId: pick(f.variants).id, rollout: Math.floor(rand() * 100) });
        label = `rule on ${f.key}`;
      } else if (action === 3 && booleanFlags.length > 0) {
        const f = pick(booleanFlags);
        const n = (await store.listRollouts(ns, f.key, { limit: 0, offset: 0 })).total;
        await store.createRollout(ns, f.key, n + 1, rand() < 0.5
          ? { description: '', segment: null, threshold: { percentage: Math.floor(rand() * 100), value: rand() < 0.5 } }
          : { description: '', threshold: null, segment: { segmentKeys: [pick(['s1', 's2'])], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true } });
        label = `rollout on ${f.key}`;
      } else if (action === 4) {
        const seg = pick(['s1', 's2', 's3']);
        await store.createConstraint(ns, seg, { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: String(step), description: '' });
        label = `constraint on ${seg}`;
      } else if (action === 5) {
        const f = pick(flags);
        await store.updateFlag(ns, f.key, { name: `${f.key}!`, description: 'd', enabled: !f.enabled, defaultVariantId: f.variants[0]?.id ?? '', metadata: undefined });
        label = `update ${f.key}`;
      } else if (action === 6) {
        const f = pick(flags);
        await store.deleteFlag(ns, f.key);
        label = `delete ${f.key}`;
      } else if (action === 7 && variantFlags.length > 0) {
        const f = pick(variantFlags);
        const rules = (await store.listRules(ns, f.key, { limit: 0, offset: 0 })).items;
        if (rules.length >= 2) await store.orderRules(ns, f.key, [...rules].reverse().map((r) => r.id));
        else if (rules.length === 1) await store.deleteRule(ns, f.key, rules[0].id);
        label = `reorder/delete rules of ${f.key}`;
      } else {
        const f = pick(flags);
        await store.transaction(async (tx) => {
          await tx.updateFlag(ns, f.key, { name: 'tx', description: '', enabled: true, defaultVariantId: '', metadata: undefined });
          await tx.createConstraint(ns, 's3', { type: 'BOOLEAN_COMPARISON_TYPE', property: 'beta', operator: 'true', value: '', description: '' });
        });
        label = `transaction on ${f.key} and s3`;
      }
      await expectFresh(`step ${step}: ${label}`);
    }
    const patches = cache.stats.patches - before.patches;
    const rebuilds = cache.stats.rebuilds - before.rebuilds;
    expect(patches).toBeGreaterThan(100);
    expect(rebuilds).toBe(0);
  });

  it('catches up with another writer found by the poller, from the change log (a patch)', async () => {
    const other = storeFor(conn, systemClock()); // a second store: its writes are not announced here
    await cache.get(ns);
    await other.createFlag(ns, { key: 'elsewhere', name: 'x', description: '', enabled: true, type: 'BOOLEAN_FLAG_TYPE', metadata: null });
    expect((await cache.get(ns)).flags.has('elsewhere')).toBe(false); // not noticed yet
    const { rebuilds, patches } = cache.stats;
    await cache.poll(); // starts the refresh at once
    // Meanwhile evaluations answer from the held snapshot, at once: nobody here waits for another
    // writer's change (a large namespace's rebuild, where the log cannot say, takes seconds).
    const during = cache.get(ns);
    expect(during).not.toBeInstanceOf(Promise);
    expect((during as Awaited<typeof during>).flags.has('elsewhere')).toBe(false);
    await until(async () => (await cache.get(ns)).flags.has('elsewhere'), 'the caught-up snapshot replaces the held one', 5000);
    expect([cache.stats.rebuilds, cache.stats.patches]).toEqual([rebuilds, patches + 1]);
    await expectFresh('after the poll');
  });

  it('does not patch over a write made elsewhere in between (rebuilds instead)', async () => {
    const other = storeFor(conn, systemClock());
    await cache.get(ns);
    await other.createFlag(ns, { key: 'sneaky', name: 'x', description: '', enabled: true, type: 'BOOLEAN_FLAG_TYPE', metadata: null });
    await store.createFlag(ns, { key: 'local', name: 'x', description: '', enabled: true, type: 'BOOLEAN_FLAG_TYPE', metadata: null });
    const snapshot = await cache.get(ns);
    expect(snapshot.flags.has('local')).toBe(true);
    expect(snapshot.flags.has('sneaky')).toBe(true);
    await expectFresh('after the interleaved writes');
  });
});
