import type { IncomingMessage, ServerResponse } from 'node:http';
import { GRPC, writeError } from './errors';
import type { HealthState } from './health';

export interface HealthLaneOptions {
  nextRequestId: () => string;
}

/**
 * Ahead of Fastify (and of the fast lane), and only while the instance is not in its
 * `serving` phase: the HTTP listener opens before the database is ready, so that a load
 * balancer sees 503 NOT_SERVING instead of a refused connection, and every other request gets
 * Flipt's Unavailable body until then. Once draining, `/health` says NOT_SERVING and whatever
 * still arrives on an open keep-alive connection gets Flipt's 503 here (Fastify would answer
 * with a body of its own); the drain (drain.ts) makes the last answer on each connection say
 * `Connection: close`. Returns true when it answered.
 */
export function healthLane(health: HealthState, options: HealthLaneOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const phase = health.phase;
    if (phase === 'serving') return false;
    const url = req.url ?? '';
    // HEAD as GET: Node sends a HEAD answer's headers (Content-Length included) without its body.
    const isHealth = (req.method === 'GET' || req.method === 'HEAD') && (url === '/health' || url.startsWith('/health?') || url === '/health/');
    if (isHealth) {
      const body = JSON.stringify(health.report());
      res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return true;
    }
    if (phase === 'draining') writeError(res, 503, GRPC.UNAVAILABLE, 'the server is shutting down', { requestId: options.nextRequestId() });
    else writeError(res, 503, GRPC.UNAVAILABLE, 'the server is starting');
    return true;
  };
}
