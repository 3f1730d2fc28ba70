import type { FastifyInstance } from 'fastify';
import { emptyField, invalidField, isPennonError } from '../../core';
import type { CompiledFlag, VariantResult } from '../../evaluation';
import { variantOf } from '../observed-evaluation';
import type { FlagSources } from '../sources';
import { asObject, decodeEvaluationRequest, decodeRequests, now, requestIdOf, type EvaluationRequest } from '../wire/evaluation';
import { managementRoute } from './route';

/**
 * The deprecated `/api/v1/evaluate` and `/api/v1/batch-evaluate` (both families). They belong
 * to Flipt's management service: variant flags only, the request is validated, and the
 * response uses the legacy field names.
 */

interface Meta {
  requestId: string;
  timestamp: string;
  duration: number;
}

function legacyResponse(ns: string, req: EvaluationRequest, r: VariantResult, meta: Meta) {
  return {
    requestId: meta.requestId,
    entityId: req.entityId,
    requestContext: req.context,
    match: r.match,
    flagKey: req.flagKey,
    segmentKey: r.segmentKeys[0] ?? '',
    timestamp: meta.timestamp,
    value: r.variantKey,
    requestDurationMillis: meta.duration,
    attachment: r.variantAttachment,
    reason: r.reason,
    namespaceKey: ns,
    segmentKeys: r.segmentKeys,
  };
}

export function legacyEvaluationRoutes(app: FastifyInstance, sources: FlagSources): void {
  managementRoute(app, sources, 'POST', '/evaluate', async ({ ns, raw, request }) => {
    const snapshots = sources.of(request.raw).snapshots;
    const startedAt = performance.now();
    const req = decodeEvaluationRequest(raw);
    if (req.flagKey === '') throw emptyField('flagKey');
    if (req.entityId === '') throw emptyField('entityId');
    const result = variantOf(ns, await snapshots.flag(ns, req.flagKey), req.entityId, req.context);
    const meta = { requestId: requestIdOf(req.requestId), timestamp: now(), duration: performance.now() - startedAt };
    return legacyResponse(ns, req, result, meta);
  });

  managementRoute(app, sources, 'POST', '/batch-evaluate', async ({ ns, raw, request }) => {
    const snapshots = sources.of(request.raw).snapshots;
    const startedAt = performance.now();
    const body = asObject(raw);
    const requestId = requestIdOf(typeof body.requestId === 'string' ? body.requestId : typeof body.request_id === 'string' ? body.request_id : '');
    const excludeNotFound = body.excludeNotFound === true || body.exclude_not_found === true;
    const requests = decodeRequests(body);
    if (requests.some((r) => r.namespaceKey !== '' && r.namespaceKey !== ns)) {
      throw invalidField('namespace_key', 'must be the same for all requests if specified');
    }
    const flags: (CompiledFlag | null)[] = [];
    for (const req of requests) {
      try {
        flags.push(await snapshots.flag(ns, req.flagKey));
      } catch (err) {
        // A missing flag is dropped with excludeNotFound, and fails the whole batch otherwise.
        if (excludeNotFound && isPennonError(err) && err.kind === 'not_found') flags.push(null);
        else throw err;
      }
    }
    const timestamp = now();
    const responses = requests.flatMap((req, i) => {
      const flag = flags[i];
      if (!flag) return [];
      // Inner responses: no request id, no duration of their own; the batch's timestamp.
      return [legacyResponse(ns, req, variantOf(ns, flag, req.entityId, req.context), { requestId: '', timestamp, duration: 0 })];
    });
    return { requestId, responses, requestDurationMillis: performance.now() - startedAt };
  });
}
