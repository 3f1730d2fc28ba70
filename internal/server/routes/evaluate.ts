import type { FastifyInstance, FastifyReply, RouteHandler } from 'fastify';
import { DEFAULT_NAMESPACE, isPennonError } from '../../core';
import {
  booleanEvaluationSchema,
  booleanEvaluationToJson,
  decodeBatchRequest,
  decodeEvaluationRequest,
  timing,
  variantEvaluationSchema,
  variantEvaluationToJson,
  type BatchEvaluationJson,
  type BatchItemJson,
} from '../../wire';
import { answerEvaluation, requestIdOf, type EvaluationKind } from '../evaluation-answer';
import { booleanOf, flagFor, variantOf } from '../observed-evaluation';
import { operation, serve } from '../route-table';
import type { FlagSources } from '../sources';

/** Sends at once when the answer is at hand; otherwise hands Fastify the promise of it. */
function respond(reply: FastifyReply, answer: object | Promise<object>) {
  return answer instanceof Promise ? answer : reply.send(answer);
}

/**
 * `/evaluate/v1`: the server-side SDKs' API. Variant and boolean are answered by
 * answerEvaluation, as on the fast lane, which serves them ahead of Fastify unless access
 * logging is on (or it declines a request).
 */
export function evaluationRoutes(app: FastifyInstance, sources: FlagSources): void {
  // Synchronous handlers: with a fresh snapshot, nothing here waits on a promise.
  const single =
    (kind: EvaluationKind): RouteHandler =>
    (request, reply) => {
      const startedAt = performance.now();
      return respond(reply, answerEvaluation(kind, decodeEvaluationRequest(request.body), sources.of(request.headers).snapshots, startedAt));
    };
  serve(app, 'EvaluateVariant', single('variant'), { schema: { response: { 200: variantEvaluationSchema } } });
  serve(app, 'EvaluateBoolean', single('boolean'), { schema: { response: { 200: booleanEvaluationSchema } } });

  operation(app, 'EvaluateBatch', async (request): Promise<BatchEvaluationJson> => {
    const startedAt = performance.now();
    const batch = decodeBatchRequest(request.body);
    const requestId = requestIdOf(batch.requestId);
    const snapshots = sources.of(request.headers).snapshots;
    // Each item is routed by its flag's type; only "not found" becomes an error item.
    const outcomes = await Promise.all(
      batch.requests.map(async (req) => {
        try {
          // Through flagFor, so that a flag not found is reported to metrics and traces too
          // (its type is unknown: it counts as a variant evaluation, as the request's default).
          return { req, flag: await flagFor(snapshots, 'variant', req.namespaceKey, req.namespaceKey || DEFAULT_NAMESPACE, req.flagKey) };
        } catch (err) {
          if (isPennonError(err) && err.kind === 'not_found') return { req, flag: null };
          throw err;
        }
      }),
    );
    const t = timing(requestId, startedAt);
    const responses = outcomes.map(({ req, flag }): BatchItemJson => {
      const itemTiming = { ...t, requestId: req.requestId };
      if (!flag) {
        return {
          type: 'ERROR_EVALUATION_RESPONSE_TYPE',
          errorResponse: { flagKey: req.flagKey, namespaceKey: req.namespaceKey, reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' },
        };
      }
      if (flag.type === 'BOOLEAN_FLAG_TYPE') {
        return { type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE', booleanResponse: booleanEvaluationToJson(req.flagKey, booleanOf(req.namespaceKey, flag, req.entityId, req.context), itemTiming) };
      }
      return { type: 'VARIANT_EVALUATION_RESPONSE_TYPE', variantResponse: variantEvaluationToJson(req.flagKey, variantOf(req.namespaceKey, flag, req.entityId, req.context), itemTiming) };
    });
    return { requestId, responses, requestDurationMillis: performance.now() - startedAt };
  });
}
