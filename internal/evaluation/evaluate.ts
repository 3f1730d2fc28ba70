import { internal, invalid } from '../core/errors';
import { thresholdValue, variantBucket } from './hash';
import type { BooleanResult, CompiledFlag, CompiledSegment, Context, VariantResult } from './types';
import type { FlagTrace, SegmentTrace } from './trace';

/**
 * Flipt v1's evaluators, exactly (`internal/server/evaluation/evaluation.go` and
 * `legacy_evaluator.go`: rules, distributions, rollouts, reasons). Pure and
 * synchronous. An optional trace records the path taken (for `pennon evaluate` and the
 * dashboard); without one, nothing extra is computed.
 */

function segmentMatches(segment: CompiledSegment, entityId: string, context: Context, trace?: SegmentTrace[]): boolean {
  const { constraints } = segment;
  // No constraints: the segment matches everyone, under ALL and ANY alike.
  if (constraints.length === 0) {
    if (trace) trace.push({ key: segment.key, matchType: segment.matchType, matched: true, constraints: [] });
    return true;
  }
  const all = segment.matchType === 'ALL_MATCH_TYPE';
  // Flipt checks every constraint; stopping early gives the same answer unless a later
  // constraint has an unknown type (an error in Flipt), hence `strict`, and traces see all.
  const shortCircuit = !trace && !segment.strict;
  let matched = 0;
  let checks: SegmentTrace['constraints'] | undefined;
  if (trace) checks = [];
  for (let i = 0; i < constraints.length; i++) {
    const c = constraints[i];
    let input: string;
    if (c.onEntityId) input = entityId;
    else {
      // A plain object's inherited members (toString, constructor…) are not context values.
      const v = context[c.property];
      input = typeof v === 'string' ? v : '';
    }
    const ok = c.match(input);
    if (checks) checks.push({ id: c.id, type: c.type, property: c.property, operator: c.operator, value: c.value, input, matched: ok });
    if (ok) {
      matched++;
      if (shortCircuit && !all) return segment.matchType === 'ANY_MATCH_TYPE';
    } else if (shortCircuit && all) return false;
  }
  const result = all ? matched === constraints.length : segment.matchType === 'ANY_MATCH_TYPE' && matched > 0;
  if (trace) trace.push({ key: segment.key, matchType: segment.matchType, matched: result, constraints: checks! });
  return result;
}

/**
 * The keys of the matching segments, or null when the segment operator is not satisfied.
 * `allKeys` is returned (not copied) when every segment matched.
 */
function matchSegments(
  segments: CompiledSegment[],
  allKeys: readonly string[],
  operator: string,
  entityId: string,
  context: Context,
  trace?: SegmentTrace[],
): readonly string[] | null {
  if (segments.length === 1) return segmentMatches(segments[0], entityId, context, trace) ? allKeys : null;
  const and = operator === 'AND_SEGMENT_OPERATOR';
  const exhaustive = trace !== undefined || segments.some((s) => s.strict);
  let keys: string[] | null = null;
  let matched = 0;
  for (let i = 0; i < segments.length; i++) {
    if (segmentMatches(segments[i], entityId, context, trace)) {
      matched++;
      (keys ??= []).push(segments[i].key);
    } else if (and && !exhaustive) return null;
  }
  if (and) return matched === segments.length ? allKeys : null;
  return matched === segments.length ? allKeys : keys;
}

const NO_KEYS: readonly string[] = Object.freeze([]);

export function evaluateVariant(
  flag: CompiledFlag,
  entityId: string,
  context: Context,
  trace?: FlagTrace,
): VariantResult {
  if (flag.type !== 'VARIANT_FLAG_TYPE') throw invalid(`flag type ${flag.type} invalid`);
  const result: VariantResult = {
    match: false,
    reason: 'UNKNOWN_EVALUATION_REASON',
    variantKey: '',
    variantAttachment: '',
    segmentKeys: NO_KEYS,
    split: false,
  };
  if (flag.defaultVariant) {
    result.reason = 'DEFAULT_EVALUATION_REASON';
    result.variantKey = flag.defaultVariant.key;
    result.variantAttachment = flag.defaultVariant.attachment;
  }
  if (!flag.enabled) {
    result.reason = 'FLAG_DISABLED_EVALUATION_REASON';
    if (trace) trace.outcome = `the flag is disabled: ${flag.defaultVariant ? `its default variant ${flag.defaultVariant.key}` : 'no variant (it has no default variant)'}`;
    return result;
  }

  let lastRank = 0;
  for (const rule of flag.rules) {
    if (rule.rank < lastRank) throw invalid(`rule rank: ${rule.rank} detected out of order`);
    lastRank = rule.rank;
    const segmentTrace: SegmentTrace[] | undefined = trace ? [] : undefined;
    const keys = matchSegments(rule.segments, rule.segmentKeys, rule.segmentOperator, entityId, context, segmentTrace);
    const step = trace && { kind: 'rule' as const, id: rule.id, rank: rule.rank, segmentOperator: rule.segmentOperator, segments: segmentTrace!, matched: keys !== null };
    if (step) trace!.steps.push(step);
    if (keys === null) continue;

    result.segmentKeys = keys;
    if (rule.valid.length === 0) {
      // A matched rule without (positive) distributions matches with no variant of its own.
      result.match = true;
      result.reason = 'MATCH_EVALUATION_REASON';
      if (trace) trace.outcome = 'it has no distributions: a match without a variant of its own';
      return result;
    }
    const bucket = variantBucket(flag.keyHashState, entityId);
    const { bounds, valid } = rule;
    for (let i = 0; i < bounds.length; i++) {
      if (bounds[i] > bucket) {
        result.match = true;
        result.reason = 'MATCH_EVALUATION_REASON';
        result.variantKey = valid[i].variantKey;
        result.variantAttachment = valid[i].variantAttachment;
        // One distribution whose range covers every bucket is a plain targeting match.
        result.split = valid.length > 1 || bounds[0] < 1000;
        if (trace) {
          trace.bucket = { value: bucket, bounds, variants: valid.map((d) => d.variantKey), rollouts: valid.map((d) => d.rollout) };
          trace.outcome = `bucket ${bucket} falls in ${valid[i].variantKey}'s range`;
        }
        return result;
      }
    }
    // The bucket is in the unallocated tail: no match, and later rules are not tried.
    if (trace) {
      trace.bucket = { value: bucket, bounds, variants: valid.map((d) => d.variantKey), rollouts: valid.map((d) => d.rollout) };
      trace.outcome = `bucket ${bucket} is past the distributed ${bounds[bounds.length - 1] / 10}%, so no variant`;
    }
    return result;
  }
  if (trace) trace.outcome = flag.defaultVariant ? `the default variant ${flag.defaultVariant.key}` : 'no variant (the flag has no default variant)';
  return result;
}

export function evaluateBoolean(
  flag: CompiledFlag,
  entityId: string,
  context: Context,
  trace?: FlagTrace,
): BooleanResult {
  if (flag.type !== 'BOOLEAN_FLAG_TYPE') throw invalid(`flag type ${flag.type} invalid`);
  // Rollouts apply even when the flag is disabled; `enabled` is only the fallback.
  let lastRank = 0;
  for (const rollout of flag.rollouts) {
    if (rollout.rank < lastRank) throw internal(`rollout rank: ${rollout.rank} detected out of order`);
    lastRank = rollout.rank;
    if (rollout.threshold) {
      const value = thresholdValue(entityId, flag.key);
      const matched = value < rollout.threshold.percentage;
      if (trace) trace.steps.push({ kind: 'threshold', id: rollout.id, rank: rollout.rank, percentage: rollout.threshold.percentage, value, matched });
      if (matched) {
        if (trace) trace.outcome = `threshold value ${value} is below ${rollout.threshold.percentage}%, so ${rollout.threshold.value}`;
        return { enabled: rollout.threshold.value, reason: 'MATCH_EVALUATION_REASON', segmentKeys: NO_KEYS, split: rollout.threshold.percentage < 100 };
      }
    } else if (rollout.segment) {
      const segmentTrace: SegmentTrace[] | undefined = trace ? [] : undefined;
      const keys = matchSegments(rollout.segment.segments, rollout.segment.segmentKeys, rollout.segment.segmentOperator, entityId, context, segmentTrace);
      if (trace) {
        trace.steps.push({ kind: 'segment', id: rollout.id, rank: rollout.rank, segmentOperator: rollout.segment.segmentOperator, segments: segmentTrace!, matched: keys !== null });
      }
      if (keys !== null) {
        if (trace) trace.outcome = `${keys.length === 1 ? 'segment' : 'segments'} ${keys.join(', ')} ${keys.length === 1 ? 'matches' : 'match'}, so ${rollout.segment.value}`;
        return { enabled: rollout.segment.value, reason: 'MATCH_EVALUATION_REASON', segmentKeys: keys, split: false };
      }
    }
  }
  if (trace) trace.outcome = `the flag's enabled value (${flag.enabled})`;
  return { enabled: flag.enabled, reason: 'DEFAULT_EVALUATION_REASON', segmentKeys: NO_KEYS, split: false };
}
