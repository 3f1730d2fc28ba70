import type { FastifyInstance } from 'fastify';
import { SEGMENT_OPERATORS, invalidField } from '../../core';
import type { RolloutRequest } from '../../management';
import { rolloutToJson, type Fields, type RolloutListJson } from '../../wire';
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

/** Rollouts exist only in Family B (the wire table has no Family A paths for them). */
export function rolloutRoutes(app: FastifyInstance, sources: FlagSources): void {
  managementRoute(app, sources, 'ListRollouts', async ({ management, ns, params, query }): Promise<RolloutListJson> => {
    const page = await management.listRollouts(ns, params.flagKey, listInput(query));
    // Flipt names the rollout list's array `rules`.
    return { rules: page.items.map(rolloutToJson), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
  });

  managementRoute(app, sources, 'GetRollout', async ({ management, ns, params }) => rolloutToJson(await management.getRollout(ns, params.flagKey, params.id)));

  managementRoute(app, sources, 'CreateRollout', async ({ management, ns, params, body }) =>
    rolloutToJson(await management.createRollout(ns, params.flagKey, { ...rolloutRequest(body), rank: body.int32('rank') })),
  );

  managementRoute(app, sources, 'OrderRollouts', async ({ management, ns, params, body }) => {
    await management.orderRollouts(ns, params.flagKey, body.strList('rolloutIds'));
    return EMPTY;
  });

  managementRoute(app, sources, 'UpdateRollout', async ({ management, ns, params, body }) =>
    rolloutToJson(await management.updateRollout(ns, params.flagKey, params.id, rolloutRequest(body))),
  );

  managementRoute(app, sources, 'DeleteRollout', async ({ management, ns, params }) => {
    await management.deleteRollout(ns, params.flagKey, params.id);
    return EMPTY;
  });
}
