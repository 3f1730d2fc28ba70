import { evaluateBoolean, evaluateVariant, type BooleanResult, type CompiledFlag, type Context, type VariantResult } from '../evaluation';
import type { SnapshotCache } from '../snapshots';
import { emitEvaluation, evaluationsObserved } from '../telemetry/evaluations';

/**
 * The evaluator as every route calls it: the same answers, reported to telemetry (metrics,
 * traces) when something listens. `ns` is the namespace as the request named it.
 */
export function variantOf(ns: string, flag: CompiledFlag, entityId: string, context: Context): VariantResult {
  if (!evaluationsObserved()) return evaluateVariant(flag, entityId, context);
  const startedAt = performance.now();
  try {
    const r = evaluateVariant(flag, entityId, context);
    emitEvaluation({
      type: 'variant',
      namespace: ns,
      flag: flag.key,
      startedAt,
      durationMs: performance.now() - startedAt,
      result: { match: r.match, reason: r.reason, value: r.variantKey, segments: r.segmentKeys },
    });
    return r;
  } catch (error) {
    emitEvaluation({ type: 'variant', namespace: ns, flag: flag.key, startedAt, durationMs: performance.now() - startedAt, error });
    throw error;
  }
}

export function booleanOf(ns: string, flag: CompiledFlag, entityId: string, context: Context): BooleanResult {
  if (!evaluationsObserved()) return evaluateBoolean(flag, entityId, context);
  const startedAt = performance.now();
  try {
    const r = evaluateBoolean(flag, entityId, context);
    emitEvaluation({
      type: 'boolean',
      namespace: ns,
      flag: flag.key,
      startedAt,
      durationMs: performance.now() - startedAt,
      result: { match: r.enabled, reason: r.reason, value: String(r.enabled), segments: r.segmentKeys },
    });
    return r;
  } catch (error) {
    emitEvaluation({ type: 'boolean', namespace: ns, flag: flag.key, startedAt, durationMs: performance.now() - startedAt, error });
    throw error;
  }
}

/** A flag for one evaluation; a failed lookup (not found, store unavailable) is reported as an evaluation error. */
export function flagFor(
  snapshots: SnapshotCache,
  type: 'variant' | 'boolean',
  requested: string,
  ns: string,
  key: string,
): ReturnType<SnapshotCache['flagNow']> {
  if (!evaluationsObserved()) return snapshots.flagNow(ns, key);
  const startedAt = performance.now();
  const failed = (error: unknown) => {
    emitEvaluation({ type, namespace: requested, flag: key, startedAt, durationMs: performance.now() - startedAt, error });
    throw error;
  };
  try {
    const flag = snapshots.flagNow(ns, key);
    return flag instanceof Promise ? flag.catch(failed) : flag;
  } catch (error) {
    return failed(error);
  }
}
