/**
 * What each evaluation reports to telemetry (metrics, traces): a tiny synchronous event bus,
 * so that the evaluation paths (the fast lane, Fastify routes, OFREP, the legacy API) report
 * in one way, and so that an evaluation costs nothing extra when nobody listens.
 */
export interface EvaluationEvent {
  type: 'variant' | 'boolean';
  /** As the request gave it (may be ""), as Flipt labels it. */
  namespace: string;
  flag: string;
  /** performance.now() when the evaluation began, and how long it took (ms). */
  startedAt: number;
  durationMs: number;
  /**
   * Set when the flag could not be looked up (no such namespace or flag, or its namespace could
   * not be loaded): the names are the client's, and name nothing that exists, so metrics must
   * not make series of them.
   */
  lookupFailed?: boolean;
  /** Absent when the evaluation failed (e.g. flag not found). */
  result?: { match: boolean; reason: string; value: string; segments: readonly string[] };
  error?: unknown;
}

type Listener = (event: EvaluationEvent) => void;

const listeners: Listener[] = [];

export function onEvaluation(listener: Listener): () => void {
  listeners.push(listener);
  return () => {
    const i = listeners.indexOf(listener);
    if (i >= 0) listeners.splice(i, 1);
  };
}

/** False when no one listens: callers skip building events on the hot path. */
export function evaluationsObserved(): boolean {
  return listeners.length > 0;
}

export function emitEvaluation(event: EvaluationEvent): void {
  for (const listener of listeners) listener(event);
}
