import { describe, expect, it } from 'vitest';
import { isPennonError } from '../../internal/core';
import {
  bucketBounds,
  compileMatcher,
  compileNamespace,
  crc32,
  evaluateBoolean,
  evaluateVariant,
  thresholdValue,
  variantBucket,
  type Context,
} from '../../internal/evaluation';
import { CRC_START, crc32Update } from '../../internal/evaluation/hash';
import { caseFlags, checkFields, comparisonType, loadVectors, toNamespaceData, type VCase } from '../support/vectors';

/**
 * The pure evaluator against every vector: constraint matchers, hash pins, bucket layouts and
 * the evaluator cases. (The same cases also run through the HTTP API in
 * test/integration/evaluation/vectors.test.ts.)
 */
const vectors = loadVectors();

function context(values: Record<string, string> | undefined): Context {
  return Object.assign(Object.create(null), values ?? {});
}

describe('constraint matchers (vectors)', () => {
  const cases = [
    ...vectors.cases.filter((c) => c.kind === 'constraint').map((c) => ({ id: c.id, constraint: c.constraint!, input: c.input, expect: c.expect })),
    ...vectors.supplementary.constraints.map((c, i) => ({ id: `supplementary-${i}`, ...c })),
  ];
  it.each(cases)('$id', ({ constraint, input, expect: want }) => {
    const match = compileMatcher(comparisonType(constraint.type), constraint.operator, constraint.value);
    expect(match(input.value)).toBe(want.match);
  });
});

describe('hashing (vectors)', () => {
  it.each(vectors.supplementary.hashes)('$flagKey / $entityId', ({ flagKey, entityId, variantBucket: bucket, thresholdValue: threshold }) => {
    expect(variantBucket(crc32Update(CRC_START, flagKey), entityId)).toBe(bucket);
    expect(crc32(flagKey + entityId) % 1000).toBe(bucket);
    if (typeof threshold === 'number') expect(thresholdValue(entityId, flagKey)).toBe(threshold);
  });

  it.each(vectors.supplementary.bucketLayouts)('bounds of $rollouts', ({ rollouts, buckets }) => {
    expect(bucketBounds(rollouts)).toEqual(buckets);
  });

  it('matches the reference pins', () => {
    expect(crc32('foo1') % 1000).toBe(244);
    expect(thresholdValue('1', 'foo')).toBe(63);
    expect(crc32('über-flagjürgen') % 1000).toBe(814);
    expect(thresholdValue('🚀', 'flag')).toBe(87);
  });
});

type EvalOutcome = { result?: Record<string, unknown>; error?: unknown };

function runPure(c: VCase): EvalOutcome[] {
  const { namespaceKey, flags } = caseFlags(vectors, c);
  const snapshot = compileNamespace(toNamespaceData(namespaceKey, flags));
  const requests = c.request.requests ?? [c.request];
  return requests.map((r: { flagKey: string; entityId?: string; context?: Record<string, string> }) => {
    const flag = snapshot.flags.get(r.flagKey);
    if (!flag) return { error: 'not found' };
    try {
      const ctx = context(r.context);
      // Single requests use the case's surface; batches route by flag type, as Flipt's batch does.
      const asBoolean = c.kind === 'boolean' || (c.kind !== 'variant' && flag.type === 'BOOLEAN_FLAG_TYPE');
      if (asBoolean) {
        return { result: { ...evaluateBoolean(flag, r.entityId ?? '', ctx), flagKey: r.flagKey } };
      }
      const v = evaluateVariant(flag, r.entityId ?? '', ctx);
      // Legacy field names as well, so `expect` blocks of either surface can be checked.
      return { result: { ...v, value: v.variantKey, attachment: v.variantAttachment, segmentKey: v.segmentKeys[0] ?? '', flagKey: r.flagKey, requestContext: r.context } };
    } catch (error) {
      return { error };
    }
  });
}

describe('evaluator cases (vectors, pure)', () => {
  const cases = vectors.cases.filter((c) => ['variant', 'boolean', 'batch', 'legacyBatch'].includes(c.kind));
  it.each(cases)('$id', (c) => {
    const outcomes = runPure(c);
    const want = c.expect;
    if (c.kind === 'variant' || c.kind === 'boolean') {
      const [outcome] = outcomes;
      if (want.error) {
        if (want.error.httpStatus === 404) expect(outcome.error).toBe('not found');
        else {
          expect(isPennonError(outcome.error) && outcome.error.message).toBe(want.error.message);
        }
        return;
      }
      expect(outcome.error, String(outcome.error)).toBeUndefined();
      checkFields(outcome.result!, want, c.id);
      return;
    }
    // Batches: per-item checks (not-found items are errors here; the HTTP test checks their shape).
    const items: Record<string, any>[] = want.responses ?? [];
    const found = outcomes.filter((o) => o.error !== 'not found');
    if (c.kind === 'legacyBatch' && want.error) {
      expect(outcomes.some((o) => o.error === 'not found')).toBe(true);
      return;
    }
    for (const [i, item] of items.entries()) {
      const body = item.variantResponse ?? item.booleanResponse ?? item;
      if (item.errorResponse) continue;
      const outcome = c.kind === 'batch' ? outcomes[i] : found[i];
      expect(outcome.error).toBeUndefined();
      checkFields(outcome.result!, Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'requestId' && k !== 'type')), `${c.id}[${i}]`);
    }
  });
});
