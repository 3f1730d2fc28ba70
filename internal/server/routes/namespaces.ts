import type { FastifyInstance } from 'fastify';
import { Fields, namespaceToJson, type NamespaceListJson } from '../../wire';
import { operation, type CallRequest } from '../route-table';
import type { FlagSources } from '../sources';
import { EMPTY, listInput, managementFor } from './route';

/** Namespaces exist only in Family B. Listing names no namespace: scoped tokens are refused (as Flipt does). */
export function namespaceRoutes(app: FastifyInstance, sources: FlagSources): void {
  const managementOf = (request: CallRequest) => managementFor(sources.of(request.headers), request);
  operation(app, 'ListNamespaces', async (request): Promise<NamespaceListJson> => {
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
