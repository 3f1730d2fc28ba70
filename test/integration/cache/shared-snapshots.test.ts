import { describe, expect, it } from 'vitest';
import { MemoryCache, SharedSnapshotSource } from '../../../internal/cache';
import { compileNamespace, evaluateVariant } from '../../../internal/evaluation';
import type { NamespaceData } from '../../../internal/core';
import { importText } from '../../../internal/ext';
import type { EvaluationSource, Store } from '../../../internal/storage';
import { largeDocument } from '../../support/large-document';
import { backends } from '../../support/backends';
import { flagWithSegment, useStore } from '../../support/store';

/** Counts how often the database is read for a whole namespace (the store itself is real). */
function counting(store: Store): EvaluationSource & { getRevision: Store['getRevision']; loads: number; pages: number } {
  const source = {
    loads: 0,
    pages: 0,
    getRevision: (ns: string) => store.getRevision(ns),
    loadNamespace: (ns: string) => {
      source.loads++;
      return store.loadNamespace(ns);
    },
    loadNamespacePages: (ns: string, consume: (page: NamespaceData) => Promise<void>) =>
      store.loadNamespacePages!(ns, (page) => {
        source.pages++;
        return consume(page);
      }),
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

  it('reads a large namespace in pages and never builds its JSON; a small one read in pages is shared', async () => {
    const { store } = fixture;
    const document = (ns: string, flags: number) =>
      largeDocument({ flags, segments: 5, variants: ['a', 'b'], rollouts: [50, 50], segmentsOf: (i) => [i % 5] }).replace('namespace: default', `namespace: ${ns}`);
    for (const [ns, flags] of [['big', 1_200], ['small', 30]] as const) {
      await store.createNamespace({ key: ns, name: ns, description: '' });
      await importText(store, document(ns, flags), { encoding: 'yaml' });
    }
    const cache = new MemoryCache(0);
    const collect = async (source: SharedSnapshotSource, ns: string) => {
      const flags: string[] = [];
      const revision = await source.loadNamespacePages(ns, async (page) => void flags.push(...page.flags.map((f) => f.key)));
      return { revision, flags };
    };

    const reader = counting(store);
    const big = await collect(new SharedSnapshotSource(reader, cache, 60_000), 'big');
    expect(big.flags).toEqual(Array.from({ length: 1_200 }, (_, i) => `flag-${i}`));
    expect(big.revision).toBe(await store.getRevision('big'));
    expect([reader.pages, reader.loads, cache.size]).toEqual([Math.ceil(1_200 / 125), 0, 0]); // pages only; nothing shared

    const small = await collect(new SharedSnapshotSource(counting(store), cache, 60_000), 'small');
    expect(cache.size).toBe(1);
    const other = counting(store);
    expect(await collect(new SharedSnapshotSource(other, cache, 60_000), 'small')).toEqual(small);
    expect([other.pages, other.loads]).toEqual([0, 0]); // from the cache
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
