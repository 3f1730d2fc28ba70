import type { FastifyInstance } from 'fastify';
import { registry } from '../../telemetry';
import type { HealthState } from '../health';

/** Liveness/readiness for load balancers and Prometheus metrics; never behind authentication. */
export function healthRoutes(app: FastifyInstance, health: HealthState): void {
  app.get('/health', async () => health.report());
  app.get('/metrics', async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));
}
