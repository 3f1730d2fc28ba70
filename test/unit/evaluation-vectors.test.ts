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
import { caseStore, checkAnswer, comparisonType, loadEvaluations, loadHashing, loadMatchers, toNamespaceData, type EvaluationCase } from '../support/vectors';

/**
 * The pure evaluator against every case of test/fixtures/evaluation: constraint matchers, hash
 * pins, bucket layouts and the evaluator cases. (The same cases also run through the HTTP API
 * in test/integration/evaluation/vectors.test.ts.)
 */
const { cases: evaluations, datasets } = loadEvaluations();
const hashing = loadHashing();

function context(values: Record<string, string> | undefined): Context {
  return Object.assign(Object.create(null), values ?? {});
}

describe('constraint matchers (vectors)', () => {
  const cases = loadMatchers().map((c) => [`${c.source}: ${c.constraint.map((s) => JSON.stringify(s)).join(' ')} on ${JSON.stringify(c.given)}`, c] as const);
  it.each(cases)('%s', (_title, { constraint: [type, operator, value], given, matches }) => {
    const match = compileMatcher(comparisonType(type), operator, value);
    expect(match(given)).toBe(matches);
  });
});

describe('hashing (vectors)', () => {
  it.each(hashing.buckets)('$flagKey / $entityId', ({ flagKey, entityId, variantBucket: bucket, thresholdValue: threshold }) => {
    expect(variantBucket(crc32Update(CRC_START, flagKey), entityId)).toBe(bucket);
    expect(crc32(flagKey + entityId) % 1000).toBe(bucket);
    if (typeof threshold === 'number') expect(thresholdValue(entityId, flagKey)).toBe(threshold);
  });

  it.each(hashing.bounds)('bounds of $rollouts', ({ rollouts, bounds }) => {
    expect(bucketBounds(rollouts)).toEqual(bounds);
  });

  it('matches hash values pinned from Flipt\'s code', () => {
    expect(crc32('foo1') % 1000).toBe(244);
    expect(thresholdValue('1', 'foo')).toBe(63);
    expect(crc32('über-flagjürgen') % 1000).toBe(814);
    expect(thresholdValue('🚀', 'flag')).toBe(87);
  });
});

type EvalOutcome = { result?: Record<string, unknown>; error?: unknown };

function runPure(c: EvaluationCase): EvalOutcome[] {
  const { namespaceKey, store } = caseStore(datasets, c);
  const snapshot = compileNamespace(toNamespaceData(namespaceKey, store));
  const requests = c.request.requests ?? [c.request];
  return requests.map((r: { flagKey: string; entityId?: string; context?: Record<string, string> }) => {
    const flag = snapshot.flags.get(r.flagKey);
    if (!flag) return { error: 'not found' };
    try {
      const ctx = context(r.context);
      // Single requests use the case's surface; batches route by flag type, as Flipt's batch does.
      const asBoolean = c.call === 'boolean' || ((c.call === 'batch' || c.call === 'legacy-batch') && flag.type === 'BOOLEAN_FLAG_TYPE');
      if (asBoolean) {
        return { result: { ...evaluateBoolean(flag, r.entityId ?? '', ctx), flagKey: r.flagKey } };
      }
      const v = evaluateVariant(flag, r.entityId ?? '', ctx);
      // Legacy field names as well, so answers of either surface can be checked.
      return { result: { ...v, value: v.variantKey, attachment: v.variantAttachment, segmentKey: v.segmentKeys[0] ?? '', flagKey: r.flagKey } };
    } catch (error) {
      return { error };
    }
  });
}

describe('evaluator cases (vectors, pure)', () => {
  const cases = evaluations.filter((c) => ['legacy', 'legacy-batch', 'variant', 'boolean', 'batch'].includes(c.call));
  it.each(cases.map((c) => [c.source, c] as const))('%s', (_source, c) => {
    const outcomes = runPure(c);
    if (c.call !== 'batch' && c.call !== 'legacy-batch') {
      const [outcome] = outcomes;
      if (c.error) {
        if (c.error.status === 404) expect(outcome.error).toBe('not found');
        else {
          expect(isPennonError(outcome.error) && outcome.error.message).toBe(c.error.message);
        }
        return;
      }
      expect(outcome.error, String(outcome.error)).toBeUndefined();
      // Echoing the request's context is the legacy HTTP response's part, not the evaluator's:
      // test/integration/evaluation/vectors.test.ts checks it against the context sent.
      const { echoesContext: _echo, ...answer } = c.answer ?? {};
      checkAnswer(outcome.result!, answer, c.source);
      return;
    }
    // Batches: per-item checks (not-found items are errors here; the HTTP test checks their shape).
    const found = outcomes.filter((o) => o.error !== 'not found');
    if (c.call === 'legacy-batch' && c.error) {
      expect(outcomes.some((o) => o.error === 'not found')).toBe(true);
      return;
    }
    for (const [i, item] of (c.answers ?? []).entries()) {
      if (item.as === 'error') continue;
      const outcome = c.call === 'batch' ? outcomes[i] : found[i];
      expect(outcome.error).toBeUndefined();
      const { requestId: _id, ...fields } = item;
      checkAnswer(outcome.result!, fields, `${c.source}[${i}]`);
    }
  });
});
