import type { FastifyInstance } from 'fastify';

/**
 * HEAD on every GET route, answered by the GET route itself: the same handler and hooks
 * (compression, ETag and 304 included), after which Node's HTTP server sends the headers and
 * drops the body, so status, Content-Length and Content-Encoding are exactly GET's. Fastify's
 * own `exposeHeadRoutes` is not used: its HEAD twin gets the route's hooks but not those that
 * plugins such as @fastify/compress add per route afterwards, so a HEAD of a gzipped list
 * announced the uncompressed length and no encoding. (Flipt's gateway answers HEAD with 501.)
 * Install before any route is registered.
 */
export function answerHeadLikeGet(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (methods.includes('GET') && !methods.includes('HEAD')) route.method = [...methods, 'HEAD'];
  });
}
