import type { IncomingMessage, ServerResponse } from 'node:http';
import { GRPC, writeError } from './errors';
import type { HealthState } from './health';

export interface HealthLaneOptions {
  /** True once the HTTP server is closing (Fastify's preClose). */
  closing: () => boolean;
  nextRequestId: () => string;
}

/**
 * Ahead of Fastify (and of the fast lane), and only while the instance is not in its
 * `serving` phase or the HTTP server is closing: the HTTP listener opens before the database
 * is ready, so that a load balancer sees 503 NOT_SERVING instead of a refused connection, and
 * every other request gets Flipt's Unavailable body until then. Once the server is closing,
 * whatever still arrives on an open keep-alive connection gets 503 and `Connection: close` here
 * (Fastify would answer with a body of its own), and `/health` keeps saying NOT_SERVING.
 * Returns true when it answered.
 */
export function healthLane(health: HealthState, options: HealthLaneOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const phase = health.phase;
    if (phase === 'serving' && !options.closing()) return false;
    const url = req.url ?? '';
    // HEAD as GET: Node sends a HEAD answer's headers (Content-Length included) without its body.
    const isHealth = (req.method === 'GET' || req.method === 'HEAD') && (url === '/health' || url.startsWith('/health?') || url === '/health/');
    if (isHealth && phase !== 'serving') {
      const body = JSON.stringify(health.report());
      res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(phase === 'draining' && { connection: 'close' }) });
      res.end(body);
      return true;
    }
    if (options.closing()) {
      writeError(res, 503, GRPC.UNAVAILABLE, 'the server is shutting down', { requestId: options.nextRequestId(), close: true });
      return true;
    }
    if (phase === 'draining') return false;
    writeError(res, 503, GRPC.UNAVAILABLE, 'the server is starting');
    return true;
  };
}
