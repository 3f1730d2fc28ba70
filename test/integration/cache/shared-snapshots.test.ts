import { describe, expect, it } from 'vitest';
import { MemoryCache, SharedSnapshotSource } from '../../../internal/cache';
import { compileNamespace, evaluateVariant } from '../../../internal/evaluation';
import type { EvaluationSource, Store } from '../../../internal/storage';
import { backends } from '../../support/backends';
import { flagWithSegment, useStore } from '../../support/store';

/** Counts how often the database is read for a whole namespace (the store itself is real). */
function counting(store: Store): EvaluationSource & { getRevision: Store['getRevision']; loads: number } {
  const source = {
    loads: 0,
    getRevision: (ns: string) => store.getRevision(ns),
    loadNamespace: (ns: string) => {
      source.loads++;
      return store.loadNamespace(ns);
    },
    loadFlags: store.loadFlags.bind(store),
    listRevisions: store.listRevisions.bind(store),
  };
  return source;
}

describe('SharedSnapshotSource', () => {
  const fixture = useStore(backends()[0]);

  it('reads a namespace from the database once per revision; other instances get it from the cache', async () => {
    const { store } = fixture;
    await store.createNamespace({ key: 'shared', name: 'Shared', description: '' });
    await flagWithSegment(store, 'shared', 'f', ['a', 'b']);
    const cache = new MemoryCache(0);
    const first = counting(store);
    const second = counting(store);
    const one = await new SharedSnapshotSource(first, cache, 60_000).loadNamespace('shared');
    const two = await new SharedSnapshotSource(second, cache, 60_000).loadNamespace('shared');
    expect(first.loads).toBe(1);
    expect(second.loads).toBe(0);
    expect(two).toEqual(one);
    // What comes out of the cache compiles and evaluates exactly like what came from the database.
    const answer = (data: typeof one) => evaluateVariant(compileNamespace(data!).flags.get('f')!, 'someone', {});
    expect(answer(two)).toEqual(answer(one));

    await store.updateFlag('shared', 'f', { name: 'renamed', description: '', enabled: true, defaultVariantId: '', metadata: undefined });
    const three = await new SharedSnapshotSource(second, cache, 60_000).loadNamespace('shared');
    expect(second.loads).toBe(1); // a new revision is a new key: never a stale answer
    expect(three!.revision).not.toBe(one!.revision);
    expect(three!.flags[0].name).toBe('renamed');
    await cache.close();
  });

  it('answers null for a namespace that does not exist, without caching anything', async () => {
    const cache = new MemoryCache(0);
    const source = counting(fixture.store);
    expect(await new SharedSnapshotSource(source, cache, 60_000).loadNamespace('nope')).toBeNull();
    expect(cache.size).toBe(0);
  });
});

describe('MemoryCache', () => {
  it('expires entries by TTL, sweeps them, and stays bounded', async () => {
    let now = 1_000;
    const cache = new MemoryCache(0, { now: () => now });
    await cache.set('a', '1', 100);
    await cache.set('b', '2', 1_000);
    expect(await cache.get('a')).toBe('1');
    now += 150;
    expect(await cache.get('a')).toBeUndefined();
    expect(await cache.get('b')).toBe('2');
    now += 1_000;
    expect(cache.evict()).toBe(1);
    expect(cache.size).toBe(0);
    for (let i = 0; i < 50_010; i++) await cache.set(`k${i}`, 'v', 60_000);
    expect(cache.size).toBeLessThanOrEqual(50_000);
    expect(await cache.get('k50009')).toBe('v');
    await cache.delete('k50009');
    expect(await cache.get('k50009')).toBeUndefined();
  });
});
