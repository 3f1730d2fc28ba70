import type { FastifyInstance } from 'fastify';
import { COMPARISON_TYPES, MATCH_TYPES } from '../../core';
import type { ConstraintRequest, Management } from '../../management';
import type { Fields } from '../wire/decode';
import { constraintJson, segmentJson } from '../wire/encode';
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

export function segmentRoutes(app: FastifyInstance, management: Management): void {
  managementRoute(app, 'GET', '/segments', async ({ ns, query }) => {
    const page = await management.listSegments(ns, listInput(query));
    return { segments: page.items.map(segmentJson), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
  });

  managementRoute(app, 'GET', '/segments/:key', async ({ ns, params }) => segmentJson(await management.getSegment(ns, params.key)));

  managementRoute(app, 'POST', '/segments', async ({ ns, body }) =>
    segmentJson(
      await management.createSegment(ns, {
        key: body.str('key'),
        name: body.str('name'),
        description: body.str('description'),
        matchType: body.enumOf('matchType', MATCH_TYPES),
      }),
    ),
  );

  managementRoute(app, 'PUT', '/segments/:key', async ({ ns, params, body }) =>
    segmentJson(
      await management.updateSegment(ns, params.key, {
        name: body.str('name'),
        description: body.str('description'),
        matchType: body.enumOf('matchType', MATCH_TYPES),
      }),
    ),
  );

  managementRoute(app, 'DELETE', '/segments/:key', async ({ ns, params }) => {
    await management.deleteSegment(ns, params.key);
    return EMPTY;
  });

  managementRoute(app, 'POST', '/segments/:segmentKey/constraints', async ({ ns, params, body }) =>
    constraintJson(await management.createConstraint(ns, params.segmentKey, constraintRequest(body))),
  );

  managementRoute(app, 'PUT', '/segments/:segmentKey/constraints/:id', async ({ ns, params, body }) =>
    constraintJson(await management.updateConstraint(ns, params.segmentKey, params.id, constraintRequest(body))),
  );

  managementRoute(app, 'DELETE', '/segments/:segmentKey/constraints/:id', async ({ ns, params }) => {
    await management.deleteConstraint(ns, params.segmentKey, params.id);
    return EMPTY;
  });
}
