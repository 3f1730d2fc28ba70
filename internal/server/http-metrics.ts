import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../telemetry';

/** Where Fastify leaves the matched route pattern for the metrics wrapper to read. */
const ROUTE = Symbol('pennon.route');
type Routed = IncomingMessage & { [ROUTE]?: string };

/** The paths the evaluation fast lane answers itself (they never reach Fastify's hooks). */
const LANE_ROUTES = new Set(['/evaluate/v1/variant', '/evaluate/v1/boolean', '/evaluate/v1/variant/', '/evaluate/v1/boolean/']);

/**
 * Counts and times every HTTP request by method, route *pattern* and status, wrapped around
 * the server's handler so that the fast lane and Fastify are measured the same way. Raw paths
 * are never labels (they would let clients grow the series without bound).
 */
export function measured(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  metrics: Metrics,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = performance.now();
    res.once('finish', () => {
      const route = (req as Routed)[ROUTE] ?? (LANE_ROUTES.has(req.url ?? '') ? (req.url ?? '').replace(/\/$/, '') : 'unmatched');
      metrics.request(req.method ?? 'GET', route, res.statusCode, (performance.now() - started) / 1000);
    });
    handler(req, res);
  };
}

/** Records the matched route pattern of each Fastify request, and serves `/metrics`. */
export function installMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRequest', async (request) => {
    (request.raw as Routed)[ROUTE] = request.routeOptions.url ?? 'unmatched';
  });
  app.get('/metrics', { config: { surface: 'public' } }, async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}
