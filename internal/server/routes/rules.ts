import type { FastifyInstance } from 'fastify';
import { SEGMENT_OPERATORS } from '../../core';
import type { DistributionRequest, RuleRequest } from '../../management';
import { distributionToJson, ruleToJson, type Fields, type RuleListJson } from '../../wire';
import type { FlagSources } from '../sources';
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

export function ruleRoutes(app: FastifyInstance, sources: FlagSources): void {
  managementRoute(app, sources, 'ListRules', async ({ management, ns, params, query }): Promise<RuleListJson> => {
    const page = await management.listRules(ns, params.flagKey, listInput(query));
    return { rules: page.items.map(ruleToJson), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
  });

  managementRoute(app, sources, 'GetRule', async ({ management, ns, params }) =>
    ruleToJson(await management.getRule(ns, params.flagKey, params.id)),
  );

  managementRoute(app, sources, 'CreateRule', async ({ management, ns, params, body }) =>
    ruleToJson(await management.createRule(ns, params.flagKey, { ...ruleRequest(body), rank: body.int32('rank') })),
  );

  // A static segment: it wins over `rules/:id`, as `order` does in Flipt.
  managementRoute(app, sources, 'OrderRules', async ({ management, ns, params, body }) => {
    await management.orderRules(ns, params.flagKey, body.strList('ruleIds'));
    return EMPTY;
  });

  managementRoute(app, sources, 'UpdateRule', async ({ management, ns, params, body }) =>
    ruleToJson(await management.updateRule(ns, params.flagKey, params.id, ruleRequest(body))),
  );

  managementRoute(app, sources, 'DeleteRule', async ({ management, ns, params }) => {
    await management.deleteRule(ns, params.flagKey, params.id);
    return EMPTY;
  });

  managementRoute(app, sources, 'CreateDistribution', async ({ management, ns, params, body }) =>
    distributionToJson(await management.createDistribution(ns, params.flagKey, params.ruleId, distributionRequest(body))),
  );

  managementRoute(app, sources, 'UpdateDistribution', async ({ management, ns, params, body }) =>
    distributionToJson(
      await management.updateDistribution(ns, params.flagKey, params.ruleId, params.id, distributionRequest(body)),
    ),
  );

  managementRoute(app, sources, 'DeleteDistribution', async ({ management, ns, params, query }) => {
    await management.deleteDistribution(ns, params.flagKey, params.ruleId, params.id, query.str('variantId'));
    return EMPTY;
  });
}
