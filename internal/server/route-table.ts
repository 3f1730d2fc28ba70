import type {
  FastifyInstance,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
  RouteOptions,
} from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { Authentication } from '../core';
import type { Grants } from '../auth';
import { ROUTES, routesOf, type OperationName, type RouteSpec } from '../wire/routes';

/** One registered route: a method, its URL template (`/api/v1/namespaces/:namespaceKey/flags/:key`) and its entry in the wire table. */
export interface RouteEntry {
  method: string;
  url: string;
  spec: RouteSpec;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the app registered, one entry per method, in registration order. */
    routeTable: readonly RouteEntry[];
    /** The operations any transport may call (HTTP through Fastify; gRPC through grpc/server.ts), by name. */
    operations: Operations;
  }
  interface FastifyContextConfig {
    /** The route's entry in the wire table (internal/wire/routes.ts): surface, namespace, paging. */
    route?: RouteSpec;
  }
}

const BY_METHOD_AND_PATH = new Map(ROUTES.map((r) => [`${r.method} ${r.path}`, r]));
const STATIC_FILES = ROUTES.find((r) => r.staticFiles);

/**
 * The table's entry for a route being registered: by its method and URL, or — for the
 * dashboard's files, one route each, which @fastify/static marks with `config.file` — the
 * table's static-files entry. HEAD rides along with GET (head.ts).
 */
function specOf(method: string, url: string, config: unknown): RouteSpec | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  if (STATIC_FILES && wanted === STATIC_FILES.method && typeof (config as { file?: unknown } | undefined)?.file === 'string') return STATIC_FILES;
  return BY_METHOD_AND_PATH.get(`${wanted} ${url}`);
}

/**
 * Holds registration to the wire table: a route that is not in it cannot be registered (the
 * app fails to build), and every route gets its entry in `config.route`, which the auth gate
 * reads. Records the routes as registered (`app.routeTable`), so that whatever walks them —
 * the HEAD, depth, paging and fuzz tests — reads the app itself. Install before any route is
 * registered, after head.ts (so HEAD is among a GET route's methods).
 */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.decorate('operations', new Map());
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    const specs = methods.map((method) => specOf(method, route.url, route.config));
    const spec = specs[0];
    if (!spec || specs.some((s) => s !== spec)) {
      throw new Error(`${methods.join(',')} ${route.url} is not in the route table (internal/wire/routes.ts)`);
    }
    route.config = { ...route.config, route: spec };
    for (const method of methods) table.push({ method, url: route.url, spec });
  });
}

/** What a route may add to its table entry: how Fastify handles it, never where it is. */
export type RouteExtras = Pick<RouteOptions, 'bodyLimit'> & { schema?: FastifySchema };

/** Registers every path of one operation of the wire table with one handler. */
export function serve<R extends RouteGenericInterface = RouteGenericInterface>(app: FastifyInstance, name: OperationName, handler: RouteHandlerMethod<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, R>, extras: RouteExtras = {}): void {
  for (const spec of routesOf(name)) app.route<R>({ method: spec.method, url: spec.path, handler, ...extras });
}

/**
 * A request as an operation's handler sees it, whichever transport carried it: Fastify's request
 * is one, and the gRPC server makes one from a message (its fields as path values, query and
 * body alike, as grpc-gateway reads them the other way round) and the call's metadata.
 */
export interface CallRequest {
  method: string;
  params: Record<string, string>;
  query: unknown;
  body: unknown;
  headers: IncomingHttpHeaders;
  /** The caller's authentication, when the surface required one. */
  auth: Authentication | null;
  /** The caller's roles, once the gate let it through (absent or null: no authentication was asked for). */
  grants?: Grants | null;
  /** The request's id (Fastify's, from X-Request-Id when given; a gRPC call's). */
  id?: string;
  /** The client's address, where the transport knows it. */
  ip?: string;
  /** How the request came: HTTP unless told. */
  transport?: 'grpc';
}

/** An operation's one implementation: a request in, the JSON answer out (protojson's shape). */
export type OperationHandler = (request: CallRequest, spec: RouteSpec) => Promise<unknown>;

export type Operations = Map<OperationName, OperationHandler>;

/**
 * Registers an operation that answers with a JSON document and nothing else of HTTP's: on every
 * path of the wire table for Fastify, and in `app.operations` for the other transports.
 */
export function operation(app: FastifyInstance, name: OperationName, handler: OperationHandler, extras: RouteExtras = {}): void {
  app.operations.set(name, handler);
  for (const spec of routesOf(name)) {
    app.route({ method: spec.method, url: spec.path, handler: (request) => handler(request as CallRequest, spec), ...extras });
  }
}
