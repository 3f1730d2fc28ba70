import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FlagSources } from '../sources';
import { Fields } from '../wire/decode';
import { namespaceJson } from '../wire/encode';
import { EMPTY, listInput } from './route';

/** Namespaces exist only in Family B. */
const byPath = { surface: 'management' as const, namespaceOf: (r: FastifyRequest) => (r.params as { key: string }).key };

export function namespaceRoutes(app: FastifyInstance, sources: FlagSources): void {
  const managementOf = (request: FastifyRequest) => sources.of(request.raw).management;
  // Listing has no single namespace: namespace-scoped tokens are refused (as Flipt does).
  app.get('/api/v1/namespaces', { config: { surface: 'management', namespaceOf: () => null } }, async (request) => {
    const page = await managementOf(request).listNamespaces(listInput(Fields.query(request.query)));
    return { namespaces: page.items.map(namespaceJson), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
  });

  app.get<{ Params: { key: string } }>('/api/v1/namespaces/:key', { config: byPath }, async (request) =>
    namespaceJson(await managementOf(request).getNamespace(request.params.key)),
  );

  const byBody = { surface: 'management' as const, namespaceOf: (r: FastifyRequest) => Fields.body(r.body).str('key') };
  app.post('/api/v1/namespaces', { config: byBody }, async (request) => {
    const body = Fields.body(request.body);
    return namespaceJson(
      await managementOf(request).createNamespace({ key: body.str('key'), name: body.str('name'), description: body.str('description') }),
    );
  });

  app.put<{ Params: { key: string } }>('/api/v1/namespaces/:key', { config: byPath }, async (request) => {
    const body = Fields.body(request.body);
    return namespaceJson(
      await managementOf(request).updateNamespace({ key: request.params.key, name: body.str('name'), description: body.str('description') }),
    );
  });

  app.delete<{ Params: { key: string } }>('/api/v1/namespaces/:key', { config: byPath }, async (request) => {
    await managementOf(request).deleteNamespace(request.params.key, Fields.query(request.query).bool('force'));
    return EMPTY;
  });
}
