import type { FastifyInstance } from 'fastify';
import { notFound } from '../../core';
import { HEALTH_SERVICES, type HealthState } from '../health';
import { serve } from '../route-table';

/**
 * Liveness/readiness for load balancers; never behind authentication. 200 while SERVING, 503
 * otherwise (Flipt's gateway answers 503 too). `?service=` as on Flipt: a name the gRPC health
 * service does not know is 404 (gRPC NotFound through the gateway).
 */
export function healthRoutes(app: FastifyInstance, health: HealthState): void {
  serve<{ Querystring: { service?: string } }>(app, 'Health', async (request, reply) => {
    const service = request.query.service ?? '';
    if (!HEALTH_SERVICES.has(service)) throw notFound('unknown service');
    const report = health.report();
    if (report.status !== 'SERVING') reply.code(503);
    return report;
  });
}
