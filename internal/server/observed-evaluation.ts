import { evaluateBoolean, evaluateVariant, type BooleanResult, type CompiledFlag, type Context, type VariantResult } from '../evaluation';
import type { Snapshots } from '../snapshots';
import { emitEvaluation, evaluationsObserved, type EvaluationEvent } from '../telemetry/evaluations';

type Outcome = NonNullable<EvaluationEvent['result']>;

const variantOutcome = (r: VariantResult): Outcome => ({ match: r.match, reason: r.reason, value: r.variantKey, segments: r.segmentKeys });
const booleanOutcome = (r: BooleanResult): Outcome => ({ match: r.enabled, reason: r.reason, value: String(r.enabled), segments: r.segmentKeys });

/** Evaluates and reports the outcome (or the error) with its timing. */
function observed<R>(
  type: EvaluationEvent['type'],
  evaluate: (flag: CompiledFlag, entityId: string, context: Context) => R,
  outcome: (r: R) => Outcome,
  ns: string,
  flag: CompiledFlag,
  entityId: string,
  context: Context,
): R {
  const startedAt = performance.now();
  try {
    const r = evaluate(flag, entityId, context);
    emitEvaluation({ type, namespace: ns, flag: flag.key, startedAt, durationMs: performance.now() - startedAt, result: outcome(r) });
    return r;
  } catch (error) {
    emitEvaluation({ type, namespace: ns, flag: flag.key, startedAt, durationMs: performance.now() - startedAt, error });
    throw error;
  }
}

/**
 * The evaluator as every route calls it: the same answers, reported to telemetry (metrics,
 * traces) when something listens. `ns` is the namespace as the request named it.
 */
export function variantOf(ns: string, flag: CompiledFlag, entityId: string, context: Context): VariantResult {
  if (!evaluationsObserved()) return evaluateVariant(flag, entityId, context);
  return observed('variant', evaluateVariant, variantOutcome, ns, flag, entityId, context);
}

export function booleanOf(ns: string, flag: CompiledFlag, entityId: string, context: Context): BooleanResult {
  if (!evaluationsObserved()) return evaluateBoolean(flag, entityId, context);
  return observed('boolean', evaluateBoolean, booleanOutcome, ns, flag, entityId, context);
}

/** A flag for one evaluation; a failed lookup (not found, store unavailable) is reported as an evaluation error. */
export function flagFor(
  snapshots: Snapshots,
  type: 'variant' | 'boolean',
  requested: string,
  ns: string,
  key: string,
): ReturnType<Snapshots['flagNow']> {
  if (!evaluationsObserved()) return snapshots.flagNow(ns, key);
  const startedAt = performance.now();
  const failed = (error: unknown) => {
    emitEvaluation({ type, namespace: requested, flag: key, startedAt, durationMs: performance.now() - startedAt, error, lookupFailed: true });
    throw error;
  };
  try {
    const flag = snapshots.flagNow(ns, key);
    return flag instanceof Promise ? flag.catch(failed) : flag;
  } catch (error) {
    return failed(error);
  }
}
