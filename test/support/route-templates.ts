import type { RouteEntry } from '../../internal/server/route-table';
import type { TestServer } from './server';

/**
 * The routes a running test server serves, read from its Fastify app (the route table that
 * internal/server/route-table.ts records as routes are registered, each with its entry in the
 * wire table, internal/wire/routes.ts: surface, how its namespace is read, paging): tests that
 * must cover every route walk these, so a new route is covered without editing them.
 */
export interface RouteTemplate extends RouteEntry {
  /** The URL's parameter names in order (`namespaceKey`, `flagKey`, …; `*` for a wildcard). */
  params: string[];
}

export function routeTemplates(server: TestServer): RouteTemplate[] {
  const seen = new Set<string>();
  const out: RouteTemplate[] = [];
  for (const entry of server.service.app.routeTable) {
    const id = `${entry.method} ${entry.url}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ ...entry, params: paramsOf(entry.url) });
  }
  return out;
}

export function paramsOf(url: string): string[] {
  return [...url.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? '*');
}

/** The URL with each parameter replaced by its (already encoded) value. */
export function fillTemplate(url: string, value: (param: string) => string): string {
  return url.replace(/:(\w+)|\*/g, (_, name: string | undefined) => value(name ?? '*'));
}
