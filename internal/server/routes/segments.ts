import type { FastifyInstance } from 'fastify';
import { COMPARISON_TYPES, MATCH_TYPES } from '../../core';
import type { ConstraintRequest, Management } from '../../management';
import { constraintToJson, segmentToJson, type Fields, type SegmentListJson } from '../../wire';
import type { FlagSources } from '../sources';
import { EMPTY, listInput, managementRoute } from './route';

function constraintRequest(body: Fields): ConstraintRequest {
  return {
    type: body.enumOf('type', COMPARISON_TYPES),
    property: body.str('property'),
    operator: body.str('operator'),
    value: body.str('value'),
    description: body.str('description'),
  };
}

export function segmentRoutes(app: FastifyInstance, sources: FlagSources): void {
  managementRoute(app, sources, 'ListSegments', async ({ management, ns, query }): Promise<SegmentListJson> => {
    const page = await management.listSegments(ns, listInput(query));
    return { segments: page.items.map(segmentToJson), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
  });

  managementRoute(app, sources, 'GetSegment', async ({ management, ns, params }) => segmentToJson(await management.getSegment(ns, params.key)));

  managementRoute(app, sources, 'CreateSegment', async ({ management, ns, body }) =>
    segmentToJson(
      await management.createSegment(ns, {
        key: body.str('key'),
        name: body.str('name'),
        description: body.str('description'),
        matchType: body.enumOf('matchType', MATCH_TYPES),
      }),
    ),
  );

  managementRoute(app, sources, 'UpdateSegment', async ({ management, ns, params, body }) =>
    segmentToJson(
      await management.updateSegment(ns, params.key, {
        name: body.str('name'),
        description: body.str('description'),
        matchType: body.enumOf('matchType', MATCH_TYPES),
      }),
    ),
  );

  managementRoute(app, sources, 'DeleteSegment', async ({ management, ns, params }) => {
    await management.deleteSegment(ns, params.key);
    return EMPTY;
  });

  managementRoute(app, sources, 'CreateConstraint', async ({ management, ns, params, body }) =>
    constraintToJson(await management.createConstraint(ns, params.segmentKey, constraintRequest(body))),
  );

  managementRoute(app, sources, 'UpdateConstraint', async ({ management, ns, params, body }) =>
    constraintToJson(await management.updateConstraint(ns, params.segmentKey, params.id, constraintRequest(body))),
  );

  managementRoute(app, sources, 'DeleteConstraint', async ({ management, ns, params }) => {
    await management.deleteConstraint(ns, params.segmentKey, params.id);
    return EMPTY;
  });
}
