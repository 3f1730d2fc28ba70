import { describe, expect, it } from 'vitest';
import { compileNamespace, type CompiledNamespace } from '../../../internal/evaluation';
import { importText } from '../../../internal/ext';
import { snapshotSlices } from '../../../internal/server/routes/snapshot-json';
import { SnapshotCache } from '../../../internal/snapshots';
import type { Store } from '../../../internal/storage';
import { silentLogger } from '../../../internal/telemetry';
import { backends } from '../../support/backends';
import { useStore } from '../../support/store';
import { until } from '../../support/wait';

/**
 * Issue 16, item 1: a write made elsewhere (another process or instance, unannounced here) is
 * found by the revision poll; the database's change log says what it touched, so only that is
 * reloaded (a patch), where the whole namespace used to be rebuilt — 17 s at 100,000 flags.
 * The cache here hears of no write: every write below is "elsewhere".
 */

/** Everything a snapshot holds that clients can see, as one string. */
const shape = (s: CompiledNamespace) => [...snapshotSlices(s, '1.47.0', 100)].join('');

const ns = 'default';

async function seed(store: Store): Promise<void> {
  await store.createSegment(ns, 'beta', { name: 'beta', description: '', matchType: 'ALL_MATCH_TYPE' });
  await store.createConstraint(ns, 'beta', { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro', description: '' });
  for (const key of ['f1', 'f2', 'f3']) {
    await store.createFlag(ns, { key, name: key, description: '', enabled: true, type: 'VARIANT_FLAG_TYPE', metadata: null });
    const variant = await store.createVariant(ns, key, { key: 'on', name: '', description: '', attachment: '' });
    const rule = await store.createRule(ns, key, 1, { segmentKeys: ['beta'], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    await store.createDistribution(ns, key, rule.id, { variantId: variant.id, rollout: 100 });
  }
}

describe.each(backends())('the change log on $name', (backend) => {
  const t = useStore(backend);

  async function expectFresh(cache: SnapshotCache, step: string) {
    const cached = await cache.get(ns);
    const rebuilt = compileNamespace((await t.store.loadNamespace(ns))!);
    expect(cached.revision, step).toBe(rebuilt.revision);
    expect(shape(cached), step).toBe(shape(rebuilt));
  }

  /** Polls once, waits for the refreshed snapshot, checks it against a rebuild; how it was refreshed. */
  async function pollUntil(cache: SnapshotCache, arrived: (snapshot: CompiledNamespace) => boolean, step: string) {
    const before = { ...cache.stats };
    await cache.poll();
    await until(async () => arrived(await cache.get(ns)), `${step}: the refreshed snapshot replaces the held one`, 5000);
    await expectFresh(cache, step);
    return { patches: cache.stats.patches - before.patches, rebuilds: cache.stats.rebuilds - before.rebuilds };
  }

  it("reloads only what another process's writes touched: a patch, not a rebuild", async () => {
    await seed(t.store);
    const cache = new SnapshotCache(t.store, { pollInterval: 0, logger: silentLogger() });
    await cache.get(ns);

    await t.store.createFlag(ns, { key: 'elsewhere', name: 'x', description: '', enabled: true, type: 'BOOLEAN_FLAG_TYPE', metadata: null });
    await t.store.createConstraint(ns, 'beta', { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: '18', description: '' });
    await t.store.updateFlag(ns, 'f1', { name: 'renamed', description: 'd', enabled: false, defaultVariantId: '', metadata: undefined });
    await t.store.deleteFlag(ns, 'f2');
    await t.store.transaction(async (tx) => {
      await tx.createVariant(ns, 'f3', { key: 'off', name: '', description: '', attachment: '' });
      await tx.updateSegment(ns, 'beta', { name: 'Beta', description: '', matchType: 'ANY_MATCH_TYPE' });
    });

    expect(await pollUntil(cache, (s) => !s.flags.has('f2'), 'after five writes elsewhere')).toEqual({ patches: 1, rebuilds: 0 });
  });

  it('reloads only the flags and segments an import elsewhere created (a bulk write names them)', async () => {
    await seed(t.store);
    const cache = new SnapshotCache(t.store, { pollInterval: 0, logger: silentLogger() });
    await cache.get(ns);
    const document = ['version: "1.4"', 'namespace: default', 'flags:', '- key: imported', '  name: Imported', '  type: BOOLEAN_FLAG_TYPE', '  enabled: true', '  rollouts:', '  - segment: {key: gamma, value: true}', 'segments:', '- key: gamma', '  name: Gamma', '  match_type: ANY_MATCH_TYPE'].join('\n');
    await importText(t.store, document, { encoding: 'yaml' });

    expect(await pollUntil(cache, (s) => s.flags.has('imported'), 'after an import elsewhere')).toEqual({ patches: 1, rebuilds: 0 });
  });

  it('rebuilds when the log cannot lead from the revision held to the current one', async () => {
    await seed(t.store);
    const cache = new SnapshotCache(t.store, { pollInterval: 0, logger: silentLogger() });
    await cache.get(ns);
    await t.store.createFlag(ns, { key: 'first', name: 'x', description: '', enabled: true, type: 'BOOLEAN_FLAG_TYPE', metadata: null });
    await t.store.createFlag(ns, { key: 'second', name: 'x', description: '', enabled: true, type: 'BOOLEAN_FLAG_TYPE', metadata: null });
    // The first of the two changes is gone from the log (as a cache 1,000 writes behind finds it).
    const logged = await t.connection.db.selectFrom('change_log').select('revision_to').where('namespace_key', '=', ns).orderBy('revision_to').execute();
    await t.connection.db.deleteFrom('change_log').where('revision_to', '=', logged.at(-2)!.revision_to).execute();

    expect(await pollUntil(cache, (s) => s.flags.has('second'), 'after the rebuild')).toEqual({ patches: 0, rebuilds: 1 });
  });

  it("keeps the last 1,000 changes of a namespace, logs a write in the write's transaction, and drops a deleted namespace's log", async () => {
    await t.store.createNamespace({ key: 'busy', name: 'busy', description: '' });
    await t.store.createFlag('busy', { key: 'f', name: 'f', description: '', enabled: true, type: 'BOOLEAN_FLAG_TYPE', metadata: null });
    const rows = async () => Number((await t.connection.db.selectFrom('change_log').select((eb) => eb.fn.countAll().as('n')).where('namespace_key', '=', 'busy').executeTakeFirstOrThrow()).n);
    expect(await rows()).toBe(1);
    for (let i = 0; i < 1_005; i++) await t.store.updateFlag('busy', 'f', { name: `f${i}`, description: '', enabled: i % 2 === 0, defaultVariantId: '', metadata: undefined });
    expect(await rows()).toBe(1_000);

    // A write that fails rolls its log row back with it.
    await expect(t.store.transaction(async (tx) => {
      await tx.updateFlag('busy', 'f', { name: 'never', description: '', enabled: true, defaultVariantId: '', metadata: undefined });
      throw new Error('abandoned');
    })).rejects.toThrow();
    const newest = await t.connection.db.selectFrom('change_log').select(['revision_to', 'flags']).where('namespace_key', '=', 'busy').orderBy('revision_to', 'desc').executeTakeFirstOrThrow();
    expect([Number(newest.revision_to), JSON.parse(newest.flags)]).toEqual([1_007, ['f']]); // creation 1, the flag 2, 1,005 updates

    await t.store.deleteNamespace('busy', true);
    expect(await rows()).toBe(0);
  }, 120_000);
});
