import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../internal/core';
import { openDatabase, prepareSchema, storeFor, type Store } from '../../internal/storage';

/**
 * A benchmark namespace: `flags` variant flags, each with `rulesPerFlag` rules on segments of
 * `constraintsPerSegment` constraints (string, number, boolean) and a 50/50 distribution, plus
 * as many boolean flags with a segment rollout and a threshold. Written in one transaction.
 */
export interface SeedShape {
  namespace: string;
  /** Variant flags (flag-N). */
  flags: number;
  /** Boolean flags (bool-N); defaults to as many as variant flags. */
  booleanFlags?: number;
  rulesPerFlag: number;
  constraintsPerSegment: number;
  segments: number;
}

export async function seedBenchNamespace(store: Store, shape: SeedShape): Promise<void> {
  const ns = shape.namespace;
  await store.transaction(async (tx) => {
    if (ns !== 'default') await tx.createNamespace({ key: ns, name: ns, description: '' });
    for (let s = 0; s < shape.segments; s++) {
      const key = `segment-${s}`;
      await tx.createSegment(ns, key, { name: key, description: '', matchType: 'ALL_MATCH_TYPE' });
      const kinds = [
        { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: `plan-${s}` },
        { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: '18' },
        { type: 'BOOLEAN_COMPARISON_TYPE', property: 'beta', operator: 'true', value: '' },
      ] as const;
      for (let c = 0; c < shape.constraintsPerSegment; c++) {
        await tx.createConstraint(ns, key, { ...kinds[c % kinds.length], description: '' });
      }
    }
    for (let f = 0; f < shape.flags; f++) {
      const key = `flag-${f}`;
      await tx.createFlag(ns, { key, name: key, description: '', enabled: true, type: 'VARIANT_FLAG_TYPE', metadata: null });
      const a = await tx.createVariant(ns, key, { key: 'control', name: '', description: '', attachment: '' });
      const b = await tx.createVariant(ns, key, { key: 'treatment', name: '', description: '', attachment: '{"color":"blue"}' });
      for (let r = 0; r < shape.rulesPerFlag; r++) {
        const segment = `segment-${(f * shape.rulesPerFlag + r) % shape.segments}`;
        const rule = await tx.createRule(ns, key, r + 1, { segmentKeys: [segment], segmentOperator: 'OR_SEGMENT_OPERATOR' });
        await tx.createDistribution(ns, key, rule.id, { variantId: a.id, rollout: 50 });
        await tx.createDistribution(ns, key, rule.id, { variantId: b.id, rollout: 50 });
      }
    }
    for (let f = 0; f < (shape.booleanFlags ?? shape.flags); f++) {
      const bool = `bool-${f}`;
      await tx.createFlag(ns, { key: bool, name: bool, description: '', enabled: true, type: 'BOOLEAN_FLAG_TYPE', metadata: null });
      await tx.createRollout(ns, bool, 1, {
        description: '',
        segment: { segmentKeys: [`segment-${f % shape.segments}`], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true },
        threshold: null,
      });
      await tx.createRollout(ns, bool, 2, { description: '', segment: null, threshold: { percentage: 50, value: true } });
    }
  });
}

/** A context that matches the last rule of flag-0 (so evaluation walks every rule first). */
export function matchingContext(shape: SeedShape, flag = 0): Record<string, string> {
  const segment = (flag * shape.rulesPerFlag + shape.rulesPerFlag - 1) % shape.segments;
  return { plan: `plan-${segment}`, age: '42', beta: 'true' };
}

/** The namespace the HTTP benchmarks serve: 1,000 flags of 10 rules × 3 constraints. */
export const HTTP_SHAPE: SeedShape = { namespace: 'default', flags: 1000, rulesPerFlag: 10, constraintsPerSegment: 3, segments: 100 };

/** A fresh SQLite file in a temporary folder holding `shape` (the caller removes `dir`). */
export async function seededDatabase(shape: SeedShape, prefix = 'pennon-bench-'): Promise<{ dir: string; dbUrl: string }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const dbUrl = `file:${join(dir, 'bench.db')}`;
  const conn = openDatabase(dbUrl);
  try {
    await prepareSchema(conn);
    await seedBenchNamespace(storeFor(conn, systemClock()), shape);
  } finally {
    await conn.close();
  }
  return { dir, dbUrl };
}
