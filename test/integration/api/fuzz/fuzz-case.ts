import fc from 'fast-check';
import type { RouteTemplate } from '../../../support/route-templates';
import { fillTemplate } from '../../../support/route-templates';
import { anyBody, anyHeaders, hostileSegment, noisePart, pagingPart, refusedBody, type Body, type QueryPart } from './arbitraries';
import { namesOf, valueFor, type World } from './world';

/**
 * One generated request against one route template of the app: its method (the route's, HEAD
 * beside a GET, now and then another), which world its parameters point into, which
 * parameters are hostile, its query, headers and body. Requests that could write to the
 * protected world are made so that they must be refused: their body is one the parser refuses,
 * or (DELETE) the item they name does not exist.
 */
export interface FuzzCase {
  route: RouteTemplate;
  method: string;
  target: 'protected' | 'sandbox';
  /** Path and query as sent. */
  path: string;
  headers: Record<string, string>;
  body?: Body;
  /** True when the request may change the world it targets (management and token writes). */
  write: boolean;
  /** True when every path parameter is the world's own value (the route's real item). */
  seeded: boolean;
  badPaging?: QueryPart['badPaging'];
  /** The route's own method on its real items: the router must find the route (no router 404 or 501). */
  routed?: boolean;
}

export interface Worlds {
  protected: World;
  sandbox: World;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const OTHER_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** Evaluations take POST bodies but write nothing: their surfaces, and the legacy evaluation of the management API. */
const isEvaluation = (route: RouteTemplate) => ['evaluation', 'ofrep'].includes(route.spec.surface) || route.spec.name === 'Evaluate' || route.spec.name === 'BatchEvaluate';
/** Family A routes name no namespace in the path: it comes from the query or the body. */
const isFamilyA = (route: RouteTemplate) => route.spec.namespace.from === 'family-a';

export function fuzzCase(route: RouteTemplate, worlds: Worlds, bodyLimit: number): fc.Arbitrary<FuzzCase> {
  const taken = new Set([...namesOf(worlds.protected), ...namesOf(worlds.sandbox), 'default']);
  const segment = hostileSegment(taken);
  const n = route.params.length;
  const method = fc.oneof(
    { arbitrary: fc.constant(route.method), weight: 6 },
    { arbitrary: fc.constant(route.method === 'GET' ? 'HEAD' : route.method), weight: 3 },
    { arbitrary: fc.constantFrom(...OTHER_METHODS), weight: 1 },
  );
  const namespaceQuery = fc.option(fc.oneof(fc.constantFrom('fuzz', 'sandbox', 'default', ''), segment), { nil: undefined });
  return fc
    .record({
      method,
      target: fc.constantFrom('protected', 'sandbox') as fc.Arbitrary<'protected' | 'sandbox'>,
      // Mostly the world's real items, so that requests get past lookups into the handlers.
      hostile: fc.array(fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 }), { minLength: n, maxLength: n }),
      values: fc.array(segment, { minLength: n, maxLength: n }),
      paging: fc.option(pagingPart, { nil: undefined }),
      noise: fc.array(noisePart, { maxLength: 3 }),
      namespace: namespaceQuery,
      headers: anyHeaders,
      body: anyBody(worlds.protected.ns, bodyLimit),
      refused: refusedBody(bodyLimit),
    })
    .map((g): FuzzCase => {
      const world = worlds[g.target];
      const write = BODY_METHODS.has(g.method) && !isEvaluation(route) && route.spec.name !== 'Webhook';
      const guard = write && g.target === 'protected';
      const hostile = [...g.hostile];
      // A DELETE aimed at the protected world names something that does not exist.
      if (guard && g.method === 'DELETE' && n > 0) hostile[n - 1] = true;
      let i = 0;
      const path = fillTemplate(route.url, (param) => {
        const at = i++;
        return hostile[at] ? g.values[at] : encodeURIComponent(valueFor(world, route.url, param));
      });
      // Beside a bad paging value, only parameters no route reads and no environment to look
      // up: the 400 must be the paging one's.
      const noise = g.paging?.badPaging ? g.noise.filter((part) => !part.known) : g.noise;
      const { 'x-flipt-environment': environment, ...others } = g.headers;
      const headers = g.paging?.badPaging || environment === undefined ? others : g.headers;
      const query: QueryPart[] = [...(g.paging ? [g.paging] : []), ...noise];
      if (isFamilyA(route) && g.namespace !== undefined) {
        // A write meant for the sandbox names no protected namespace in its query.
        const ns = write && !guard && g.namespace === worlds.protected.ns ? worlds.sandbox.ns : g.namespace;
        query.push({ text: `namespaceKey=${encodeURIComponent(ns)}` });
      }
      const body = !BODY_METHODS.has(g.method) ? undefined : guard && g.method !== 'DELETE' ? g.refused : g.body;
      return {
        route,
        method: g.method,
        target: g.target,
        path: query.length > 0 ? `${path}?${query.map((q) => q.text).join('&')}` : path,
        headers,
        body,
        write,
        seeded: !hostile.some(Boolean),
        badPaging: g.paging?.badPaging,
      };
    });
}

/**
 * The first case of every route: its own method on the protected world's real items, with a
 * body too deep to parse where the method has one (so that nothing is written). It shows the
 * route exists where its template says.
 */
export function routedCase(route: RouteTemplate, worlds: Worlds): FuzzCase {
  const path = fillTemplate(route.url, (param) => encodeURIComponent(valueFor(worlds.protected, route.url, param)));
  const body = BODY_METHODS.has(route.method) ? { kind: 'too deep', bytes: Buffer.from(`{"a":${'['.repeat(100)}${']'.repeat(100)}}`), refused: true } : undefined;
  return { route, method: route.method, target: 'protected', path, headers: {}, body, write: false, seeded: true, routed: true };
}

/** A case in a line, for failure reports. */
export function describeCase(c: FuzzCase): string {
  const body = c.body === undefined ? '' : ` [${c.body.kind}, ${c.body.bytes.length} bytes] ${preview(c.body.bytes.toString('utf8'))}`;
  return `${c.method} ${preview(c.path)} (${c.route.method} ${c.route.url}, ${c.target}) ${JSON.stringify(c.headers)}${body}`;
}

export function preview(s: string): string {
  return s.length > 160 ? `${s.slice(0, 160)}…(${s.length} chars)` : s;
}
