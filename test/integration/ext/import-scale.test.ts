import { describe, expect, it } from 'vitest';
import { decodeDocuments, encodeDocuments, importStream, type Document } from '../../../internal/ext';
import { useStore } from '../../support/store';

/**
 * 10,000 flags in one import on SQLite, in-process: all of them arrive, in one transaction,
 * and the time is printed (the bound here is loose: shared CI machines vary a lot).
 */

describe('a large import', () => {
  const ctx = useStore();

  it('imports 10,000 flags in one go', async () => {
    const { store } = ctx;
    const doc: Document = {
      version: '1.4',
      namespace: 'default',
      flags: Array.from({ length: 10_000 }, (_, i) => ({ key: `flag_${i}`, name: `Flag ${i}`, description: 'generated', enabled: i % 2 === 0 })),
    };
    const text = encodeDocuments([doc], 'json');
    const started = performance.now();
    const stream = decodeDocuments(text, { encoding: 'json' });
    const decoded = performance.now();
    const result = await importStream(store, stream);
    const finished = performance.now();
    console.log(
      `10,000 flags: decode ${(decoded - started).toFixed(0)} ms, validate + write ${(finished - decoded).toFixed(0)} ms, total ${(finished - started).toFixed(0)} ms`,
    );
    expect(result.created.flags).toBe(10_000);
    const page = await store.listFlags('default', { limit: 1, offset: 9_999 });
    expect([page.total, page.items[0].key, page.items[0].enabled]).toEqual([10_000, 'flag_9999', false]);
    expect(finished - started).toBeLessThan(30_000);
  }, 120_000);
});
