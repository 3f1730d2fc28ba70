import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HealthState } from './health';

const STARTING_BODY = JSON.stringify({ code: 14, message: 'the server is starting', details: [] });

/**
 * Ahead of Fastify (like the fast lane), and only while the instance is not in its `serving`
 * phase: the HTTP listener opens before the database is ready, so that a load balancer sees
 * 503 NOT_SERVING instead of a refused connection, and every other request gets Flipt's
 * Unavailable body until then. While draining, Fastify answers 503 to whatever still arrives
 * on an open keep-alive connection with a body of its own; `/health` is answered here so it
 * keeps saying NOT_SERVING in our words. Returns true when it answered.
 */
export function healthLane(health: HealthState): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const phase = health.phase;
    if (phase === 'serving') return false;
    const url = req.url ?? '';
    // HEAD as GET: Node sends a HEAD answer's headers (Content-Length included) without its body.
    if ((req.method === 'GET' || req.method === 'HEAD') && (url === '/health' || url.startsWith('/health?') || url === '/health/')) {
      const body = JSON.stringify(health.report());
      res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(phase === 'draining' && { connection: 'close' }) });
      res.end(body);
      return true;
    }
    if (phase === 'draining') return false;
    res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(STARTING_BODY) });
    res.end(STARTING_BODY);
    return true;
  };
}
