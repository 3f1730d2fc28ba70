import type { FastifyInstance } from 'fastify';
import { emptyField, invalidField, isPennonError } from '../../core';
import type { CompiledFlag } from '../../evaluation';
import { decodeBatchRequest, decodeEvaluationRequest, legacyEvaluationToJson, now, type LegacyBatchEvaluationJson, type LegacyEvaluationJson } from '../../wire';
import { requestIdOf } from '../evaluation-answer';
import { variantOf } from '../observed-evaluation';
import type { FlagSources } from '../sources';
import { managementRoute } from './route';

/**
 * The deprecated `/api/v1/evaluate` and `/api/v1/batch-evaluate` (both families). They belong
 * to Flipt's management service: variant flags only, the request is validated, and the
 * response uses the legacy field names.
 */
export function legacyEvaluationRoutes(app: FastifyInstance, sources: FlagSources): void {
  managementRoute(app, sources, 'Evaluate', async ({ ns, raw, snapshots }): Promise<LegacyEvaluationJson> => {
    const startedAt = performance.now();
    const req = decodeEvaluationRequest(raw);
    if (req.flagKey === '') throw emptyField('flagKey');
    if (req.entityId === '') throw emptyField('entityId');
    const result = variantOf(ns, await snapshots.flag(ns, req.flagKey), req.entityId, req.context);
    const meta = { requestId: requestIdOf(req.requestId), timestamp: now(), duration: performance.now() - startedAt };
    return legacyEvaluationToJson(ns, req, result, meta);
  });

  managementRoute(app, sources, 'BatchEvaluate', async ({ ns, raw, snapshots }): Promise<LegacyBatchEvaluationJson> => {
    const startedAt = performance.now();
    const batch = decodeBatchRequest(raw);
    const requestId = requestIdOf(batch.requestId);
    if (batch.requests.some((r) => r.namespaceKey !== '' && r.namespaceKey !== ns)) {
      throw invalidField('namespace_key', 'must be the same for all requests if specified');
    }
    const flags: (CompiledFlag | null)[] = [];
    for (const req of batch.requests) {
      try {
        flags.push(await snapshots.flag(ns, req.flagKey));
      } catch (err) {
        // A missing flag is dropped with excludeNotFound, and fails the whole batch otherwise.
        if (batch.excludeNotFound && isPennonError(err) && err.kind === 'not_found') flags.push(null);
        else throw err;
      }
    }
    const timestamp = now();
    const responses = batch.requests.flatMap((req, i) => {
      const flag = flags[i];
      if (!flag) return [];
      // Inner responses: no request id, no duration of their own; the batch's timestamp.
      return [legacyEvaluationToJson(ns, req, variantOf(ns, flag, req.entityId, req.context), { requestId: '', timestamp, duration: 0 })];
    });
    return { requestId, responses, requestDurationMillis: performance.now() - startedAt };
  });
}
