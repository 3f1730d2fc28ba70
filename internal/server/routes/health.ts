import type { FastifyInstance } from 'fastify';
import type { HealthState } from '../health';

/** Liveness/readiness for load balancers; never behind authentication. */
export function healthRoutes(app: FastifyInstance, health: HealthState): void {
  app.get('/health', async () => health.report());
}
