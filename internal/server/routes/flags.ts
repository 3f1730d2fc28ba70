import type { FastifyInstance } from 'fastify';
import { FLAG_TYPES } from '../../core';
import type { Management, VariantRequest } from '../../management';
import type { Fields } from '../wire/decode';
import { flagJson, variantJson } from '../wire/encode';
import { EMPTY, listInput, managementRoute } from './route';

function variantRequest(body: Fields): VariantRequest {
  return { key: body.str('key'), name: body.str('name'), description: body.str('description'), attachment: body.str('attachment') };
}

export function flagRoutes(app: FastifyInstance, management: Management): void {
  managementRoute(app, 'GET', '/flags', async ({ ns, query }) => {
    const page = await management.listFlags(ns, listInput(query));
    return {
      flags: page.items.map((f) => flagJson(f, { inList: true })),
      nextPageToken: page.nextPageToken,
      totalCount: page.totalCount,
    };
  });

  managementRoute(app, 'GET', '/flags/:key', async ({ ns, params }) => flagJson(await management.getFlag(ns, params.key)));

  managementRoute(app, 'POST', '/flags', async ({ ns, body }) =>
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

  managementRoute(app, 'PUT', '/flags/:key', async ({ ns, params, body }) =>
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

  managementRoute(app, 'DELETE', '/flags/:key', async ({ ns, params }) => {
    await management.deleteFlag(ns, params.key);
    return EMPTY;
  });

  managementRoute(app, 'POST', '/flags/:flagKey/variants', async ({ ns, params, body }) =>
    variantJson(await management.createVariant(ns, params.flagKey, variantRequest(body))),
  );

  managementRoute(app, 'PUT', '/flags/:flagKey/variants/:id', async ({ ns, params, body }) =>
    variantJson(await management.updateVariant(ns, params.flagKey, params.id, variantRequest(body))),
  );

  managementRoute(app, 'DELETE', '/flags/:flagKey/variants/:id', async ({ ns, params }) => {
    await management.deleteVariant(ns, params.flagKey, params.id);
    return EMPTY;
  });
}
