import type { FastifyInstance } from 'fastify';
import { isPennonError, type Namespace } from '../../core';
import type { Grants } from '../../auth';
import type { Management } from '../../management';
import { Fields, namespaceToJson, type NamespaceListJson } from '../../wire';
import { operation, type CallRequest } from '../route-table';
import type { FlagSources } from '../sources';
import { EMPTY, listInput, managementFor } from './route';

/**
 * Namespaces exist only in Family B. Listing names no namespace: scoped tokens are refused (as
 * Flipt does). A caller whose roles hold on some namespaces only (authorization.roles bindings)
 * may list, and sees those namespaces alone: all of them in one page (they are as many as its
 * bindings name), in key order.
 */
export function namespaceRoutes(app: FastifyInstance, sources: FlagSources): void {
  const managementOf = (request: CallRequest) => managementFor(sources.of(request.headers), request);
  operation(app, 'ListNamespaces', async (request): Promise<NamespaceListJson> => {
    const grants = request.grants;
    if (grants && grants.global === null) return heldNamespaces(managementOf(request), grants);
    const page = await managementOf(request).listNamespaces(listInput(Fields.query(request.query)));
    return { namespaces: page.items.map(namespaceToJson), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
  });

  operation(app, 'GetNamespace', async (request) => namespaceToJson(await managementOf(request).getNamespace(request.params.key)));

  operation(app, 'CreateNamespace', async (request) => {
    const body = Fields.body(request.body);
    return namespaceToJson(
      await managementOf(request).createNamespace({ key: body.str('key'), name: body.str('name'), description: body.str('description') }),
    );
  });

  operation(app, 'UpdateNamespace', async (request) => {
    const body = Fields.body(request.body);
    return namespaceToJson(
      await managementOf(request).updateNamespace({ key: request.params.key, name: body.str('name'), description: body.str('description') }),
    );
  });

  operation(app, 'DeleteNamespace', async (request) => {
    await managementOf(request).deleteNamespace(request.params.key, Fields.query(request.query).bool('force'));
    return EMPTY;
  });
}

/** The namespaces a caller holds roles in, as a list answer; those that do not exist are left out. */
async function heldNamespaces(management: Management, grants: Grants): Promise<NamespaceListJson> {
  const keys = [...grants.namespaces.keys()].sort();
  const found = await Promise.all(
    keys.map((key) =>
      management.getNamespace(key).catch((err: unknown) => {
        if (isPennonError(err) && err.kind === 'not_found') return null;
        throw err;
      }),
    ),
  );
  const namespaces = found.filter((ns): ns is Namespace => ns !== null);
  return { namespaces: namespaces.map(namespaceToJson), nextPageToken: '', totalCount: namespaces.length };
}
