import type { FastifyInstance } from 'fastify';
import { FLAG_TYPES } from '../../core';
import type { VariantRequest } from '../../management';
import { flagInListToJson, flagToJson, variantToJson, type Fields, type FlagListJson } from '../../wire';
import type { FlagSources } from '../sources';
import { EMPTY, listInput, managementRoute } from './route';

function variantRequest(body: Fields): VariantRequest {
  return { key: body.str('key'), name: body.str('name'), description: body.str('description'), attachment: body.str('attachment') };
}

export function flagRoutes(app: FastifyInstance, sources: FlagSources): void {
  managementRoute(app, sources, 'ListFlags', async ({ management, ns, query }): Promise<FlagListJson> => {
    const page = await management.listFlags(ns, listInput(query));
    return {
      flags: page.items.map(flagInListToJson),
      nextPageToken: page.nextPageToken,
      totalCount: page.totalCount,
    };
  });

  managementRoute(app, sources, 'GetFlag', async ({ management, ns, params }) => flagToJson(await management.getFlag(ns, params.key)));

  managementRoute(app, sources, 'CreateFlag', async ({ management, ns, body }) =>
    flagToJson(
      await management.createFlag(ns, {
        key: body.str('key'),
        name: body.str('name'),
        description: body.str('description'),
        enabled: body.bool('enabled'),
        type: body.enumOf('type', FLAG_TYPES),
        metadata: body.object('metadata'),
      }),
    ),
  );

  managementRoute(app, sources, 'UpdateFlag', async ({ management, ns, params, body }) =>
    flagToJson(
      await management.updateFlag(ns, params.key, {
        name: body.str('name'),
        description: body.str('description'),
        enabled: body.bool('enabled'),
        defaultVariantId: body.str('defaultVariantId'),
        metadata: body.object('metadata'),
      }),
    ),
  );

  managementRoute(app, sources, 'DeleteFlag', async ({ management, ns, params }) => {
    await management.deleteFlag(ns, params.key);
    return EMPTY;
  });

  managementRoute(app, sources, 'CreateVariant', async ({ management, ns, params, body }) =>
    variantToJson(await management.createVariant(ns, params.flagKey, variantRequest(body))),
  );

  managementRoute(app, sources, 'UpdateVariant', async ({ management, ns, params, body }) =>
    variantToJson(await management.updateVariant(ns, params.flagKey, params.id, variantRequest(body))),
  );

  managementRoute(app, sources, 'DeleteVariant', async ({ management, ns, params }) => {
    await management.deleteVariant(ns, params.flagKey, params.id);
    return EMPTY;
  });
}
