import type { FastifyInstance } from 'fastify';
import { invalidField, notFound, unavailable } from '../../core';
import type { LiveHub } from '../../live';
import { Fields } from '../../wire';
import { streamErrorHandler, streamFailure } from '../errors';
import type { RequestErrorLog } from '../error-log';
import { followWhileOpen, openHttpStream } from '../live-http';
import { serve } from '../route-table';
import type { FlagSources } from '../sources';
import type { DigestedBodies } from './client-v2-body';
import { SnapshotStream } from './client-v2-stream';
import { chooseEncoding } from './snapshot-body';

/**
 * Flipt v2's client API for client-side SDKs (flipt-client-sdks in streaming mode), over HTTP as
 * Flipt's gateway serves it:
 * - `GET /client/v2/environments/{environment}/namespaces/{key}/snapshot`: the namespace's
 *   snapshot document with its `digest`, which is also its (unquoted) ETag; a matching
 *   If-None-Match is a 304. A namespace that does not exist is Flipt v2's 404.
 * - `GET …/stream`: the whole snapshot on connect and after every change, one
 *   `{"result": …}` line each (client-v2-stream.ts), skipping the digest the client has
 *   (`?digest=`, 40 characters or none). Refusals before the first frame are grpc-gateway's
 *   error line (`{"error": …}`) under the error's status.
 * The path names the environment (sources.ts: the database is `default`); X-Flipt-Environment
 * is not read. The stream is held by the LiveHub (`streams.max`, ended first at shutdown).
 */

export interface ClientV2Deps {
  sources: FlagSources;
  bodies: DigestedBodies;
  live: LiveHub;
  maxBufferedBytes: number;
  errors: RequestErrorLog;
}

type Params = { Params: { environment: string; key: string } };

export function clientV2Routes(app: FastifyInstance, deps: ClientV2Deps): void {
  const { sources, bodies } = deps;

  serve<Params>(app, 'ClientSnapshotNamespace', async (request, reply) => {
    const { environment, key } = request.params;
    const snapshot = await sources.environment(environment).snapshots.get(key);
    if (snapshot.revision === '') throw notFound(`evaluation snapshot for namespace "${key}" not found`);
    const body = await bodies.of(snapshot);
    reply.header('vary', 'Accept-Encoding');
    reply.header('etag', body.digest);
    if (request.headers['if-none-match'] === body.digest) return reply.status(304).send();
    const encoding = chooseEncoding(request.headers['accept-encoding']);
    reply.type('application/json');
    if (encoding !== 'identity') reply.header('content-encoding', encoding);
    reply.header('content-length', body.length(encoding));
    return reply.send(body.stream(encoding));
  });

  // The stream in a scope of its own: its refusals are error lines, not error documents.
  void app.register(async (scope) => {
    scope.setErrorHandler(streamErrorHandler(deps.errors));
    serve<Params>(scope, 'ClientSnapshotNamespaceStream', async (request, reply) => {
      const digest = Fields.query(request.query).str('digest');
      if (digest.length !== 0 && digest.length !== 40) throw invalidField('digest', 'must be a 40-character string');
      const { environment, key } = request.params;
      const source = sources.environment(environment);
      const streamOptions = { contentType: 'application/json', maxBufferedBytes: deps.maxBufferedBytes };
      if (request.method === 'HEAD') {
        // A stream's headers, without holding open a body that HEAD never gets.
        const headers = { 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no', 'x-request-id': request.id };
        return reply.status(200).type(streamOptions.contentType).headers(headers).send();
      }
      const subscriber = new SnapshotStream({ bodies, digest, maxBufferedBytes: deps.maxBufferedBytes, failure: (err) => streamFailure(err, request.id, deps.errors) });
      // Subscribed before the first read, so no change falls between them; refused (503) before any byte.
      const unsubscribe = followWhileOpen(deps.live, source, key, reply, subscriber);
      try {
        const current = await source.snapshots.get(key);
        if (subscriber.endedEarly) throw unavailable('the server is shutting down');
        subscriber.open(openHttpStream(request, reply, streamOptions), reply.raw, current);
      } catch (err) {
        unsubscribe();
        throw err;
      }
      return reply;
    });
  });
}
