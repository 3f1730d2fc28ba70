import type { FastifyInstance } from 'fastify';
import { FLAG_TYPES } from '../../core';
import type { VariantRequest } from '../../management';
import type { Fields } from '../wire/decode';
import { flagJson, variantJson } from '../wire/encode';
import type { FlagSources } from '../sources';
import { EMPTY, listInput, managementRoute } from './route';

function variantRequest(body: Fields): VariantRequest {
  return { key: body.str('key'), name: body.str('name'), description: body.str('description'), attachment: body.str('attachment') };
}

export function flagRoutes(app: FastifyInstance, sources: FlagSources): void {
  managementRoute(app, sources, 'GET', '/flags', async ({ management, ns, query }) => {
    const page = await management.listFlags(ns, listInput(query));
    return {
      flags: page.items.map((f) => flagJson(f, { inList: true })),
      nextPageToken: page.nextPageToken,
      totalCount: page.totalCount,
    };
  });

  managementRoute(app, sources, 'GET', '/flags/:key', async ({ management, ns, params }) => flagJson(await management.getFlag(ns, params.key)));

  managementRoute(app, sources, 'POST', '/flags', async ({ management, ns, body }) =>
    flagJson(
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

  managementRoute(app, sources, 'PUT', '/flags/:key', async ({ management, ns, params, body }) =>
    flagJson(
      await management.updateFlag(ns, params.key, {
        name: body.str('name'),
        description: body.str('description'),
        enabled: body.bool('enabled'),
        defaultVariantId: body.str('defaultVariantId'),
        metadata: body.object('metadata'),
      }),
    ),
  );

  managementRoute(app, sources, 'DELETE', '/flags/:key', async ({ management, ns, params }) => {
    await management.deleteFlag(ns, params.key);
    return EMPTY;
  });

  managementRoute(app, sources, 'POST', '/flags/:flagKey/variants', async ({ management, ns, params, body }) =>
    variantJson(await management.createVariant(ns, params.flagKey, variantRequest(body))),
  );

  managementRoute(app, sources, 'PUT', '/flags/:flagKey/variants/:id', async ({ management, ns, params, body }) =>
    variantJson(await management.updateVariant(ns, params.flagKey, params.id, variantRequest(body))),
  );

  managementRoute(app, sources, 'DELETE', '/flags/:flagKey/variants/:id', async ({ management, ns, params }) => {
    await management.deleteVariant(ns, params.flagKey, params.id);
    return EMPTY;
  });
}
