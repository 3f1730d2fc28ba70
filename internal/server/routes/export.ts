import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_NAMESPACE, invalidField } from '../../core';
import type { BulkExporter } from '../../ext';
import { Fields } from '../../wire';
import { serve } from '../route-table';

/**
 * Pennon's own bulk export (Flipt has no such route): `GET /api/v1/namespaces/{ns}/export` and
 * `GET /api/v1/export` answer what `pennon flag export` writes in-process — Flipt's document
 * stream, read from one consistent state of the database — streamed as it is produced, off the
 * server's thread (the exporter's). Query: `format` (`yaml`, the default, | `json`),
 * `sortByKey`, and on the whole-instance route `namespaces` (a comma list; every namespace
 * without it). Management surface: a namespace-scoped token may export its own namespace and
 * never use the whole-instance route. Only where flags are in the database: Git-backed flags
 * are exported by their repository.
 */

export interface ExportRouteDeps {
  exporter: BulkExporter;
}

export function exportRoutes(app: FastifyInstance, deps: ExportRouteDeps): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply, namespaces: string[] | null) => {
    const query = Fields.query(request.query);
    const format = query.str('format');
    if (format !== '' && format !== 'yaml' && format !== 'json') throw invalidField('format', 'must be yaml or json');
    const encoding = format === 'json' ? 'json' : 'yaml';
    const chunks = deps.exporter({ namespaces, sortByKey: query.bool('sortByKey'), encoding })[Symbol.asyncIterator]();
    // The first chunk before the status: a namespace that does not exist is a 404, not a broken stream.
    const first = await chunks.next();
    reply.type(encoding === 'json' ? 'application/json' : 'application/yaml; charset=utf-8');
    // An error later ends the stream without its last chunk: the reader sees it incomplete.
    return reply.send(Readable.from(continuing(first, chunks)));
  };

  serve(app, 'ExportNamespace', (request, reply) => handle(request, reply, [(request.params as { namespaceKey: string }).namespaceKey || DEFAULT_NAMESPACE]));
  // No namespace: a scoped token is refused here (the gate fails closed).
  serve(app, 'ExportAll', (request, reply) => {
    const listed = Fields.query(request.query).str('namespaces');
    const keys = listed.split(',').map((k) => k.trim()).filter((k) => k !== '');
    if (listed !== '' && keys.length === 0) throw invalidField('namespaces', 'must name at least one namespace (a comma list), or be left out for every namespace');
    return handle(request, reply, keys.length > 0 ? keys : null);
  });
}

async function* continuing(first: IteratorResult<Uint8Array>, rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    if (first.done) return;
    yield first.value;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    // The reader went away (or the stream failed): the exporter stops.
    await rest.return?.();
  }
}
