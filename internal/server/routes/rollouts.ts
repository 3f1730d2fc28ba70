import type { FastifyInstance } from 'fastify';
import { SEGMENT_OPERATORS, invalidField } from '../../core';
import type { RolloutRequest } from '../../management';
import type { Fields } from '../wire/decode';
import { rolloutJson } from '../wire/encode';
import type { FlagSources } from '../sources';
import { EMPTY, listInput, managementRoute } from './route';

function rolloutRequest(body: Fields): RolloutRequest {
  const segment = body.message('segment');
  const threshold = body.message('threshold');
  // `segment` and `threshold` are a protobuf oneof: at most one may be set.
  if (segment && threshold) throw invalidField('rule', 'only one of segment or threshold can be set');
  return {
    description: body.str('description'),
    segment: segment && {
      segmentKey: segment.str('segmentKey'),
      segmentKeys: segment.strList('segmentKeys'),
      segmentOperator: segment.enumOf('segmentOperator', SEGMENT_OPERATORS),
      value: segment.bool('value'),
    },
    threshold: threshold && { percentage: threshold.float('percentage'), value: threshold.bool('value') },
  };
}

/** Rollouts exist only in Family B. Their list names its array `rules`, as Flipt's does. */
export function rolloutRoutes(app: FastifyInstance, sources: FlagSources): void {
  const familyB = { familyA: false };

  managementRoute(
    app,
    sources,
    'GET',
    '/flags/:flagKey/rollouts',
    async ({ management, ns, params, query }) => {
      const page = await management.listRollouts(ns, params.flagKey, listInput(query));
      return { rules: page.items.map(rolloutJson), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
    },
    familyB,
  );

  managementRoute(
    app,
    sources,
    'GET',
    '/flags/:flagKey/rollouts/:id',
    async ({ management, ns, params }) => rolloutJson(await management.getRollout(ns, params.flagKey, params.id)),
    familyB,
  );

  managementRoute(
    app,
    sources,
    'POST',
    '/flags/:flagKey/rollouts',
    async ({ management, ns, params, body }) =>
      rolloutJson(await management.createRollout(ns, params.flagKey, { ...rolloutRequest(body), rank: body.int32('rank') })),
    familyB,
  );

  managementRoute(
    app,
    sources,
    'PUT',
    '/flags/:flagKey/rollouts/order',
    async ({ management, ns, params, body }) => {
      await management.orderRollouts(ns, params.flagKey, body.strList('rolloutIds'));
      return EMPTY;
    },
    familyB,
  );

  managementRoute(
    app,
    sources,
    'PUT',
    '/flags/:flagKey/rollouts/:id',
    async ({ management, ns, params, body }) => rolloutJson(await management.updateRollout(ns, params.flagKey, params.id, rolloutRequest(body))),
    familyB,
  );

  managementRoute(
    app,
    sources,
    'DELETE',
    '/flags/:flagKey/rollouts/:id',
    async ({ management, ns, params }) => {
      await management.deleteRollout(ns, params.flagKey, params.id);
      return EMPTY;
    },
    familyB,
  );
}
