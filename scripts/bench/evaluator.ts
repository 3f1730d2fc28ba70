import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../internal/core';
import { compileNamespace, evaluateBoolean, evaluateVariant, type Context } from '../../internal/evaluation';
import { openDatabase, prepareSchema, storeFor } from '../../internal/storage';
import { matchingContext, seedBenchNamespace, type SeedShape } from './seed';

/**
 * In-process evaluator throughput: evaluations per second for a typical flag (first of three
 * rules matches), a long one (ten rules of three constraints, the last matches) and a
 * boolean flag; entity ids vary so the hash is really computed.
 */
function measure(label: string, iterations: number, fn: (i: number) => unknown): { label: string; perSecond: number } {
  for (let i = 0; i < Math.min(iterations, 200_000); i++) fn(i); // warm up the JIT
  const ids = iterations;
  const start = process.hrtime.bigint();
  for (let i = 0; i < ids; i++) fn(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { label, perSecond: Math.round(iterations / seconds) };
}

export async function evaluatorBench(): Promise<{ label: string; perSecond: number }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-'));
  const conn = openDatabase(`file:${join(dir, 'bench.db')}`);
  try {
    await prepareSchema(conn);
    const store = storeFor(conn, systemClock());
    const long: SeedShape = { namespace: 'long', flags: 20, rulesPerFlag: 10, constraintsPerSegment: 3, segments: 50 };
    const typical: SeedShape = { namespace: 'typical', flags: 20, rulesPerFlag: 3, constraintsPerSegment: 3, segments: 50 };
    await seedBenchNamespace(store, long);
    await seedBenchNamespace(store, typical);
    const longNs = compileNamespace((await store.loadNamespace('long'))!);
    const typicalNs = compileNamespace((await store.loadNamespace('typical'))!);

    const entities = Array.from({ length: 4096 }, (_, i) => `user-${i}-${(i * 2654435761) >>> 0}`);
    const ctx = (values: Record<string, string>): Context => Object.assign(Object.create(null), values);
    const firstRule = ctx({ plan: 'plan-0', age: '42', beta: 'true' });
    const lastRule = ctx(matchingContext(long));
    const typicalFlag = typicalNs.flags.get('flag-0')!;
    const longFlag = longNs.flags.get('flag-0')!;
    const boolFlag = typicalNs.flags.get('bool-1')!;
    const n = 2_000_000;
    return [
      measure('variant, 3 rules, first matches', n, (i) => evaluateVariant(typicalFlag, entities[i & 4095], firstRule)),
      measure('variant, 10 rules x 3 constraints, last matches', n, (i) => evaluateVariant(longFlag, entities[i & 4095], lastRule)),
      measure('boolean, segment miss then 50% threshold', n, (i) => evaluateBoolean(boolFlag, entities[i & 4095], firstRule)),
    ];
  } finally {
    await conn.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
