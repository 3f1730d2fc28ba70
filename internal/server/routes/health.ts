import type { FastifyInstance } from 'fastify';

/** Liveness and readiness for load balancers; never behind authentication. */
export function healthRoutes(app: FastifyInstance): void {
  app.get('/health', async () => ({ status: 'SERVING' }));
}
