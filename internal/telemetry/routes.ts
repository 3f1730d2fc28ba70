import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * The route *pattern* that answered a request, for metric labels and span names (never the
 * raw path, which would let clients grow series without bound). Whoever routes marks it: the
 * evaluation fast lane for its own paths, a Fastify hook for everything else.
 */
const ROUTE = Symbol('pennon.route');
type Routed = IncomingMessage & { [ROUTE]?: string };

export function markRoute(req: IncomingMessage, route: string): void {
  (req as Routed)[ROUTE] = route;
}

/** The pattern, or undefined when no route matched (a 404, or answered before routing). */
export function routeOf(req: IncomingMessage): string | undefined {
  return (req as Routed)[ROUTE];
}

/** Marks Fastify's requests. Install before any hook that may answer (authentication), so refused requests are named too. */
export function markFastifyRoutes(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined) markRoute(request.raw, route);
    done();
  });
}
