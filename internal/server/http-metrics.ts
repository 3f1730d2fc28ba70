import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../telemetry';

/** Where Fastify leaves the matched route pattern for the metrics wrapper to read. */
const ROUTE = Symbol('pennon.route');
type Routed = IncomingMessage & { [ROUTE]?: string };
const STARTED = Symbol('pennon.started');
const METRICS = Symbol('pennon.metrics');
type Timed = ServerResponse & { [STARTED]: number; [METRICS]: Metrics };

/** One shared listener (no closure or once-wrapper per request): `this` is the response. */
function recordFinished(this: Timed): void {
  const req = this.req as Routed;
  const url = req.url ?? '';
  const route = req[ROUTE] ?? (LANE_ROUTES.has(url) ? url.replace(/\/$/, '') : 'unmatched');
  this[METRICS].request(req.method ?? 'GET', route, this.statusCode, (performance.now() - this[STARTED]) / 1000);
}

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
    const timed = res as Timed;
    timed[STARTED] = performance.now();
    timed[METRICS] = metrics;
    res.on('finish', recordFinished); // 'finish' fires once per response
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
