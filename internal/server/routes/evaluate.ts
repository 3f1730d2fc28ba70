import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_NAMESPACE, isPennonError } from '../../core';
import type { CompiledFlag } from '../../evaluation';
import { booleanOf, flagFor, variantOf } from '../observed-evaluation';
import type { FlagSources } from '../sources';
import {
  asObject,
  booleanResponse,
  booleanResponseSchema,
  decodeEvaluationRequest,
  decodeRequests,
  requestIdOf,
  timing,
  variantResponse,
  variantResponseSchema,
} from '../wire/evaluation';

/**
 * `/evaluate/v1`: the server-side SDKs' API. No validation of the request (an empty entity id
 * is allowed, an empty flag key is simply not found), as in Flipt.
 */
/** Sends at once when the flag is at hand; otherwise hands Fastify a promise of the answer. */
function respond(reply: FastifyReply, flag: CompiledFlag | Promise<CompiledFlag>, answer: (flag: CompiledFlag) => object) {
  if (flag instanceof Promise) return flag.then(answer);
  return reply.send(answer(flag));
}

// The namespace a request acts on, for namespace-scoped tokens: read by the same decoder the
// handler uses, so that the check and the evaluation can never disagree.
const single = {
  surface: 'evaluation' as const,
  namespaceOf: (r: FastifyRequest) => decodeEvaluationRequest(r.body).namespaceKey || DEFAULT_NAMESPACE,
};
/** A batch names one namespace only if all its requests agree. */
const batch = {
  surface: 'evaluation' as const,
  namespaceOf: (r: FastifyRequest) => {
    const namespaces = new Set(decodeRequests(asObject(r.body)).map((q) => q.namespaceKey || DEFAULT_NAMESPACE));
    return namespaces.size === 1 ? [...namespaces][0] : null;
  },
};

export function evaluationRoutes(app: FastifyInstance, sources: FlagSources): void {
  // Synchronous handlers: with a fresh snapshot, nothing here waits on a promise.
  app.post('/evaluate/v1/variant', { schema: { response: { 200: variantResponseSchema } }, config: single }, (request, reply) => {
    const startedAt = performance.now();
    const req = decodeEvaluationRequest(request.body);
    const answer = (flag: CompiledFlag) =>
      variantResponse(req.flagKey, variantOf(req.namespaceKey, flag, req.entityId, req.context), timing(requestIdOf(req.requestId), startedAt));
    return respond(reply, flagFor(sources.of(request.raw).snapshots, 'variant', req.namespaceKey, req.namespaceKey || DEFAULT_NAMESPACE, req.flagKey), answer);
  });

  app.post('/evaluate/v1/boolean', { schema: { response: { 200: booleanResponseSchema } }, config: single }, (request, reply) => {
    const startedAt = performance.now();
    const req = decodeEvaluationRequest(request.body);
    const answer = (flag: CompiledFlag) =>
      booleanResponse(req.flagKey, booleanOf(req.namespaceKey, flag, req.entityId, req.context), timing(requestIdOf(req.requestId), startedAt));
    return respond(reply, flagFor(sources.of(request.raw).snapshots, 'boolean', req.namespaceKey, req.namespaceKey || DEFAULT_NAMESPACE, req.flagKey), answer);
  });

  app.post('/evaluate/v1/batch', { config: batch }, async (request) => {
    const startedAt = performance.now();
    const body = asObject(request.body);
    const requestId = requestIdOf(typeof body.requestId === 'string' ? body.requestId : typeof body.request_id === 'string' ? body.request_id : '');
    const requests = decodeRequests(body);
    const snapshots = sources.of(request.raw).snapshots;
    // Each item is routed by its flag's type; only "not found" becomes an error item.
    const outcomes = await Promise.all(
      requests.map(async (req) => {
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
    const responses = outcomes.map(({ req, flag }) => {
      const itemTiming = { ...t, requestId: req.requestId };
      if (!flag) {
        return {
          type: 'ERROR_EVALUATION_RESPONSE_TYPE',
          errorResponse: { flagKey: req.flagKey, namespaceKey: req.namespaceKey, reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' },
        };
      }
      if (flag.type === 'BOOLEAN_FLAG_TYPE') {
        return { type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE', booleanResponse: booleanResponse(req.flagKey, booleanOf(req.namespaceKey, flag, req.entityId, req.context), itemTiming) };
      }
      return { type: 'VARIANT_EVALUATION_RESPONSE_TYPE', variantResponse: variantResponse(req.flagKey, variantOf(req.namespaceKey, flag, req.entityId, req.context), itemTiming) };
    });
    return { requestId, responses, requestDurationMillis: performance.now() - startedAt };
  });
}
