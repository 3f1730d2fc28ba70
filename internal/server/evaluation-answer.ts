import { randomUUID } from 'node:crypto';
import { DEFAULT_NAMESPACE } from '../core';
import type { CompiledFlag } from '../evaluation';
import type { Snapshots } from '../snapshots';
import {
  booleanEvaluationToJson,
  timing,
  variantEvaluationToJson,
  type BooleanEvaluationJson,
  type EvaluationRequest,
  type VariantEvaluationJson,
} from '../wire';
import { booleanOf, flagFor, variantOf } from './observed-evaluation';

/**
 * The answer to one `/evaluate/v1` variant or boolean request, whoever carries it: the fast
 * lane at the HTTP server, the Fastify routes and the gRPC server alike. No validation of
 * the request (an empty entity id is allowed, an empty flag key is simply not found), as in
 * Flipt. Synchronous when the namespace's snapshot is fresh, so the hot path never waits on a
 * promise; a promise while the snapshot is being (re)loaded. Errors are thrown (or rejected)
 * as they come; the transport turns them into HTTP.
 */

export type EvaluationKind = 'variant' | 'boolean';

export interface EvaluationAnswers {
  variant: VariantEvaluationJson;
  boolean: BooleanEvaluationJson;
}

/** The request's own id, or a new one (Flipt makes one up when the client sends none). */
export function requestIdOf(given: string): string {
  return given !== '' ? given : randomUUID();
}

const BUILD: { [K in EvaluationKind]: (request: EvaluationRequest, flag: CompiledFlag, startedAt: number) => EvaluationAnswers[K] } = {
  variant: (req, flag, startedAt) =>
    variantEvaluationToJson(req.flagKey, variantOf(req.namespaceKey, flag, req.entityId, req.context), timing(requestIdOf(req.requestId), startedAt)),
  boolean: (req, flag, startedAt) =>
    booleanEvaluationToJson(req.flagKey, booleanOf(req.namespaceKey, flag, req.entityId, req.context), timing(requestIdOf(req.requestId), startedAt)),
};

/** `startedAt`: performance.now() when the request arrived (its reported duration starts there). */
export function answerEvaluation<K extends EvaluationKind>(
  kind: K,
  request: EvaluationRequest,
  snapshots: Snapshots,
  startedAt: number,
): EvaluationAnswers[K] | Promise<EvaluationAnswers[K]> {
  const build = BUILD[kind];
  const flag = flagFor(snapshots, kind, request.namespaceKey, request.namespaceKey || DEFAULT_NAMESPACE, request.flagKey);
  return flag instanceof Promise ? flag.then((f) => build(request, f, startedAt)) : build(request, flag, startedAt);
}
