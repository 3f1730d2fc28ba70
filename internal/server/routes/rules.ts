import type { FastifyInstance } from 'fastify';
import { SEGMENT_OPERATORS } from '../../core';
import type { DistributionRequest, Management, RuleRequest } from '../../management';
import type { Fields } from '../wire/decode';
import { distributionJson, ruleJson } from '../wire/encode';
import { EMPTY, listInput, managementRoute } from './route';

function ruleRequest(body: Fields): RuleRequest {
  return {
    segmentKey: body.str('segmentKey'),
    segmentKeys: body.strList('segmentKeys'),
    segmentOperator: body.enumOf('segmentOperator', SEGMENT_OPERATORS),
  };
}

function distributionRequest(body: Fields): DistributionRequest {
  return { variantId: body.str('variantId'), rollout: body.float('rollout') };
}

export function ruleRoutes(app: FastifyInstance, management: Management): void {
  managementRoute(app, 'GET', '/flags/:flagKey/rules', async ({ ns, params, query }) => {
    const page = await management.listRules(ns, params.flagKey, listInput(query));
    return { rules: page.items.map(ruleJson), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
  });

  managementRoute(app, 'GET', '/flags/:flagKey/rules/:id', async ({ ns, params }) =>
    ruleJson(await management.getRule(ns, params.flagKey, params.id)),
  );

  managementRoute(app, 'POST', '/flags/:flagKey/rules', async ({ ns, params, body }) =>
    ruleJson(await management.createRule(ns, params.flagKey, { ...ruleRequest(body), rank: body.int32('rank') })),
  );

  // A static segment: it wins over `rules/:id`, as `order` does in Flipt.
  managementRoute(app, 'PUT', '/flags/:flagKey/rules/order', async ({ ns, params, body }) => {
    await management.orderRules(ns, params.flagKey, body.strList('ruleIds'));
    return EMPTY;
  });

  managementRoute(app, 'PUT', '/flags/:flagKey/rules/:id', async ({ ns, params, body }) =>
    ruleJson(await management.updateRule(ns, params.flagKey, params.id, ruleRequest(body))),
  );

  managementRoute(app, 'DELETE', '/flags/:flagKey/rules/:id', async ({ ns, params }) => {
    await management.deleteRule(ns, params.flagKey, params.id);
    return EMPTY;
  });

  managementRoute(app, 'POST', '/flags/:flagKey/rules/:ruleId/distributions', async ({ ns, params, body }) =>
    distributionJson(await management.createDistribution(ns, params.flagKey, params.ruleId, distributionRequest(body))),
  );

  managementRoute(app, 'PUT', '/flags/:flagKey/rules/:ruleId/distributions/:id', async ({ ns, params, body }) =>
    distributionJson(
      await management.updateDistribution(ns, params.flagKey, params.ruleId, params.id, distributionRequest(body)),
    ),
  );

  managementRoute(app, 'DELETE', '/flags/:flagKey/rules/:ruleId/distributions/:id', async ({ ns, params, query }) => {
    await management.deleteDistribution(ns, params.flagKey, params.ruleId, params.id, query.str('variantId'));
    return EMPTY;
  });
}
