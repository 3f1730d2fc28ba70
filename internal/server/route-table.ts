import type { FastifyInstance } from 'fastify';

/** One registered route: a method and its URL template (`/api/v1/namespaces/:namespaceKey/flags/:key`). */
export interface RouteEntry {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the app registered, one entry per method, in registration order. */
    routeTable: readonly RouteEntry[];
  }
}

/**
 * Records every route as Fastify registers it (its onRoute hook), so that whatever walks the
 * app's routes — the HEAD, depth and fuzz tests — reads the app itself rather than a copy
 * that goes stale when a route is added. Install before any route is registered.
 */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) table.push({ method, url: route.url });
  });
}
