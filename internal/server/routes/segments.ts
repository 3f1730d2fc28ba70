import type { FastifyInstance } from 'fastify';
import { COMPARISON_TYPES, MATCH_TYPES } from '../../core';
import type { ConstraintRequest, Management } from '../../management';
import type { Fields } from '../wire/decode';
import { constraintJson, segmentJson } from '../wire/encode';
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
  managementRoute(app, sources, 'GET', '/segments', async ({ management, ns, query }) => {
    const page = await management.listSegments(ns, listInput(query));
    return { segments: page.items.map(segmentJson), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
  });

  managementRoute(app, sources, 'GET', '/segments/:key', async ({ management, ns, params }) => segmentJson(await management.getSegment(ns, params.key)));

  managementRoute(app, sources, 'POST', '/segments', async ({ management, ns, body }) =>
    segmentJson(
      await management.createSegment(ns, {
        key: body.str('key'),
        name: body.str('name'),
        description: body.str('description'),
        matchType: body.enumOf('matchType', MATCH_TYPES),
      }),
    ),
  );

  managementRoute(app, sources, 'PUT', '/segments/:key', async ({ management, ns, params, body }) =>
    segmentJson(
      await management.updateSegment(ns, params.key, {
        name: body.str('name'),
        description: body.str('description'),
        matchType: body.enumOf('matchType', MATCH_TYPES),
      }),
    ),
  );

  managementRoute(app, sources, 'DELETE', '/segments/:key', async ({ management, ns, params }) => {
    await management.deleteSegment(ns, params.key);
    return EMPTY;
  });

  managementRoute(app, sources, 'POST', '/segments/:segmentKey/constraints', async ({ management, ns, params, body }) =>
    constraintJson(await management.createConstraint(ns, params.segmentKey, constraintRequest(body))),
  );

  managementRoute(app, sources, 'PUT', '/segments/:segmentKey/constraints/:id', async ({ management, ns, params, body }) =>
    constraintJson(await management.updateConstraint(ns, params.segmentKey, params.id, constraintRequest(body))),
  );

  managementRoute(app, sources, 'DELETE', '/segments/:segmentKey/constraints/:id', async ({ management, ns, params }) => {
    await management.deleteConstraint(ns, params.segmentKey, params.id);
    return EMPTY;
  });
}
