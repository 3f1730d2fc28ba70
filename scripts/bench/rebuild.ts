import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../internal/core';
import { compileNamespace } from '../../internal/evaluation';
import { openDatabase, prepareSchema, storeFor } from '../../internal/storage';
import { SnapshotCache } from '../../internal/snapshots';
import { silentLogger } from '../../internal/telemetry';
import { seedBenchNamespace } from './seed';

/**
 * Snapshot rebuild time for a namespace of 10,000 flags (8,000 variant flags with two variants
 * and a rule each, 2,000 boolean flags with two rollouts each, 200 segments of 3 constraints):
 * reading it from SQLite and compiling it, median of five.
 */
export async function rebuildBench(
  flags = 10_000,
): Promise<{ flags: number; loadMs: number; compileMs: number; totalMs: number; patchMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-'));
  const conn = openDatabase(`file:${join(dir, 'bench.db')}`);
  try {
    await prepareSchema(conn);
    const store = storeFor(conn, systemClock());
    await seedBenchNamespace(store, { namespace: 'big', flags: flags * 0.8, booleanFlags: flags * 0.2, rulesPerFlag: 1, constraintsPerSegment: 3, segments: 200 });
    const runs: { load: number; compile: number }[] = [];
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      const data = (await store.loadNamespace('big'))!;
      const t1 = performance.now();
      compileNamespace(data);
      const t2 = performance.now();
      if (i > 0) runs.push({ load: t1 - t0, compile: t2 - t1 }); // the first run warms up
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const loadMs = median(runs.map((r) => r.load));
    const compileMs = median(runs.map((r) => r.compile));

    // What a write made on this instance costs the next evaluation: a patch of the one flag.
    const cache = new SnapshotCache(store, { pollInterval: 0, logger: silentLogger() });
    store.onChange((change) => cache.apply(change));
    await cache.get('big');
    const patches: number[] = [];
    for (let i = 0; i < 7; i++) {
      await store.updateFlag('big', `flag-${i * 1000}`, { name: `renamed ${i}`, description: '', enabled: true, defaultVariantId: '', metadata: undefined });
      const t0 = performance.now();
      await cache.get('big');
      patches.push(performance.now() - t0);
    }
    return { flags, loadMs, compileMs, totalMs: median(runs.map((r) => r.load + r.compile)), patchMs: median(patches) };
  } finally {
    await conn.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
