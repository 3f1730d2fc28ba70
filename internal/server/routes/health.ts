import type { FastifyInstance } from 'fastify';
import { HEALTH_SERVICES, type HealthState } from '../health';

/**
 * Liveness/readiness for load balancers; never behind authentication. 200 while SERVING, 503
 * otherwise (Flipt's gateway answers 503 too). `?service=` as on Flipt: a name the gRPC health
 * service does not know is 404 (gRPC NotFound through the gateway).
 */
export function healthRoutes(app: FastifyInstance, health: HealthState): void {
  app.get<{ Querystring: { service?: string } }>('/health', { config: { surface: 'public' } }, async (request, reply) => {
    const service = request.query.service ?? '';
    if (!HEALTH_SERVICES.has(service)) return reply.code(404).send({ code: 5, message: 'unknown service', details: [] });
    const report = health.report();
    if (report.status !== 'SERVING') reply.code(503);
    return report;
  });
}
