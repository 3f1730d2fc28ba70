import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../telemetry';
import { routeOf } from '../telemetry/routes';
import { serve } from './route-table';

const STARTED = Symbol('pennon.started');
const METRICS = Symbol('pennon.metrics');
type Timed = ServerResponse & { [STARTED]: number; [METRICS]: Metrics };

/** One shared listener (no closure or once-wrapper per request): `this` is the response. */
function recordFinished(this: Timed): void {
  const req = this.req;
  this[METRICS].request(req.method ?? 'GET', routeOf(req) ?? 'unmatched', this.statusCode, (performance.now() - this[STARTED]) / 1000);
}

/**
 * Counts and times every HTTP request by method, route pattern and status, wrapped around
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

/**
 * Serves `/metrics` (route patterns are marked by telemetry/routes.ts) as a stream of the
 * scrape's slices: never the whole text at once in memory, nor its building in one piece on the
 * event loop; a slow scraper is paced by the socket.
 */
export function installMetrics(app: FastifyInstance, metrics: Metrics): void {
  serve(app, 'Metrics', async (_request, reply) => reply.type(metrics.contentType).send(Readable.from(metrics.served(), { objectMode: false })));
}
