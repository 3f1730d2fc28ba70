import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { serve } from '../route-table';
import type { FlagSources } from '../sources';
import { chooseEncoding, type SnapshotBodies } from './snapshot-body';

/**
 * The client-side SDKs' snapshot (`flipt-client-js` and friends): a namespace's flags in
 * Flipt's `EvaluationNamespaceSnapshot` shape, with an unquoted SHA-1 ETag of the namespace
 * revision, 304 on a matching If-None-Match (ETag repeated). Each rule is emitted once (Flipt
 * v1 repeats a rule once per segment). The body is built once per snapshot and version gate,
 * in slices, and kept compressed (snapshot-body.ts).
 */

export function clientSnapshotRoutes(app: FastifyInstance, sources: FlagSources, bodies: SnapshotBodies): void {
  serve<{ Params: { key: string } }>(app, 'EvaluationSnapshotNamespace', async (request, reply) => {
    const source = sources.of(request.headers);
    const snapshot = await source.snapshots.get(request.params.key);
    reply.header('vary', 'Accept-Encoding');
    // A namespace that does not exist has no version, so no ETag (as Flipt's SQL store).
    if (snapshot.revision !== '') {
      // Environments on one repository share commits: the name keeps their ETags apart.
      const etag = createHash('sha1').update(source.name === '' ? snapshot.revision : `${source.name}\n${snapshot.revision}`).digest('hex');
      reply.header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
    }
    const accept = request.headers['x-flipt-accept-server-version'];
    const body = await bodies.of(snapshot, Array.isArray(accept) ? accept[0] : accept);
    const encoding = chooseEncoding(request.headers['accept-encoding']);
    reply.type('application/json');
    if (encoding !== 'identity') reply.header('content-encoding', encoding);
    reply.header('content-length', body.length(encoding));
    return reply.send(body.stream(encoding));
  });
}
