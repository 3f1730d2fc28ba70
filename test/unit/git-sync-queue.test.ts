import { describe, expect, it } from 'vitest';
import { SyncQueue } from '../../internal/git/sync-queue';

/** The fetch queue's promise: one running, at most one queued, a request during a run never lost. */

function controlled() {
  const runs: { resolve: (v: number) => void; reject: (e: Error) => void }[] = [];
  const queue = new SyncQueue<number>(() => new Promise<number>((resolve, reject) => runs.push({ resolve, reject })));
  return { queue, runs };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('SyncQueue', () => {
  it('runs once when idle, and queues exactly one more run for any number of requests during it', async () => {
    const { queue, runs } = controlled();
    const first = queue.request();
    const during = Array.from({ length: 19 }, () => queue.request());
    expect(runs).toHaveLength(1);
    expect(new Set(during).size).toBe(1); // all share the queued run
    runs[0].resolve(1);
    expect(await first).toBe(1);
    await tick();
    expect(runs).toHaveLength(2); // the queued run started after the first ended
    runs[1].resolve(2);
    expect(await Promise.all(during)).toEqual(Array(19).fill(2));
    expect(queue.runs).toBe(2);
  });

  it('a request made while the queued run waits joins it; one made during the queued run queues another', async () => {
    const { queue, runs } = controlled();
    void queue.request();
    const queued = queue.request();
    runs[0].resolve(1);
    await tick();
    expect(runs).toHaveLength(2);
    const later = queue.request(); // during the second run: must not be satisfied by it
    runs[1].resolve(2);
    expect(await queued).toBe(2);
    await tick();
    expect(runs).toHaveLength(3);
    runs[2].resolve(3);
    expect(await later).toBe(3);
  });

  it('a failed run still lets the queued one run', async () => {
    const { queue, runs } = controlled();
    const first = queue.request();
    const queued = queue.request();
    runs[0].reject(new Error('network'));
    await expect(first).rejects.toThrow('network');
    await tick();
    runs[1].resolve(7);
    expect(await queued).toBe(7);
    await queue.idle();
  });
});
