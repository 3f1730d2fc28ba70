import type { NamespaceData, Segment } from '../core/types';
import { compileNamespace } from './compile';
import { evaluateBoolean, evaluateVariant } from './evaluate';
import type { CompiledFlag, Context } from './types';

/**
 * Whether two copies of a namespace answer alike: every flag evaluated for the same entity ids
 * and contexts on each — the contexts its segments name (each segment's constraints given the
 * values they compare with, then each constraint alone, and the empty context) — and every
 * answer compared. `pennon migrate --from-flipt --verify` runs it over Flipt's data and the
 * copy, both compiled by Pennon's evaluator.
 */

export interface EvaluationDifference {
  namespace: string;
  flag: string;
  entityId: string;
  context: Context;
  source: string;
  target: string;
}

export interface Equivalence {
  evaluations: number;
  differences: EvaluationDifference[];
}

/** The value a constraint compares with, as a context would give it to match. */
function matchingValue(operator: string, value: string): string {
  if (operator === 'isoneof' || operator === 'isnotoneof') {
    try {
      const items = JSON.parse(value) as unknown;
      if (Array.isArray(items) && items.length > 0) return String(items[0]);
    } catch {
      // not a list: used as it is
    }
  }
  if (operator === 'true' || operator === 'false') return operator;
  return value;
}

/** The contexts worth trying in a namespace: each segment satisfied, each constraint alone, none. */
export function contextsFor(segments: readonly Segment[]): Context[] {
  const contexts: Context[] = [{}];
  for (const segment of segments) {
    const all: Record<string, string> = {};
    for (const c of segment.constraints) {
      all[c.property] = matchingValue(c.operator, c.value);
      contexts.push({ [c.property]: matchingValue(c.operator, c.value) });
    }
    if (segment.constraints.length > 1) contexts.push(all);
  }
  return contexts;
}

function answer(flag: CompiledFlag, entityId: string, context: Context): string {
  if (flag.type === 'BOOLEAN_FLAG_TYPE') {
    const r = evaluateBoolean(flag, entityId, context);
    return JSON.stringify([r.enabled, r.reason, r.segmentKeys]);
  }
  const r = evaluateVariant(flag, entityId, context);
  return JSON.stringify([r.match, r.variantKey, r.variantAttachment, r.reason, r.segmentKeys]);
}

/** Every flag of `source` against `target` for `entities` entity ids per context; at most `limit` differences kept. */
export function compareNamespaces(source: NamespaceData, target: NamespaceData, entities: number, limit = 20): Equivalence {
  const a = compileNamespace(source);
  const b = compileNamespace(target);
  const contexts = contextsFor(source.segments);
  const differences: EvaluationDifference[] = [];
  let evaluations = 0;
  for (const flag of a.ordered) {
    const other = b.flags.get(flag.key);
    for (let e = 0; e < entities; e++) {
      const entityId = `entity-${e}`;
      for (const context of contexts) {
        evaluations++;
        const expected = answer(flag, entityId, context);
        const got = other ? answer(other, entityId, context) : 'flag missing';
        if (got !== expected && differences.length < limit) differences.push({ namespace: source.key, flag: flag.key, entityId, context, source: expected, target: got });
      }
    }
  }
  for (const flag of b.ordered) {
    if (!a.flags.has(flag.key) && differences.length < limit) differences.push({ namespace: source.key, flag: flag.key, entityId: '', context: {}, source: 'flag missing', target: 'present' });
  }
  return { evaluations, differences };
}
