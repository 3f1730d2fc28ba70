import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../support/raw-http';
import { fillTemplate, routeTemplates, type RouteTemplate } from '../../support/route-templates';
import { expectStatus, useServer } from '../../support/server';
import { headProblems, responseProblems } from './fuzz/checks';
import { describeCase, fuzzCase, routedCase, type FuzzCase, type Worlds } from './fuzz/fuzz-case';
import { revisionOf, seedWorld, snapshotOf, valueFor } from './fuzz/world';

/**
 * Property-based fuzzing (fast-check, with shrinking) of every route template the app
 * registers — read from its route table, so a new route is fuzzed without editing this file —
 * with hostile path parameters, query strings (bad paging values among them), bodies (random
 * JSON, wrong types, nesting past the limit, huge strings, broken JSON and UTF-8, prototype
 * keys, over the size limit), headers and methods (HEAD beside every GET). For every request:
 * never a 5xx, Flipt's error body on every 4xx, HEAD equal to GET without a body, a refused
 * write leaves its namespace as it was, and the protected namespace never changes.
 *
 * Deterministic: PENNON_FUZZ_SEED (default 20260113) and PENNON_FUZZ_RUNS (runs per route,
 * default 10) choose another sequence or more of it; a failure prints its seed and the
 * shrunk request.
 */
const SEED = Number(process.env.PENNON_FUZZ_SEED ?? 20260113);
const RUNS = Number(process.env.PENNON_FUZZ_RUNS ?? 10);
const BODY_LIMIT = 512 * 1024;

describe(`fuzzing every route (seed ${SEED}, ${RUNS} runs per route)`, () => {
  const server = useServer({ PENNON_SERVER_MAX_BODY_BYTES: String(BODY_LIMIT), PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true' });
  let worlds: Worlds;
  let routes: RouteTemplate[];
  /** The GET routes that list (their answer has a nextPageToken): bad paging must be a 400 there. */
  const lists = new Set<string>();
  /** The protected world as it must stay; the revisions (client snapshot ETags) of both worlds after the last write. */
  let protectedBefore: unknown;
  let protectedRevision: string;
  let sandboxRevision: string;

  beforeAll(async () => {
    worlds = { protected: await seedWorld(server.api, 'fuzz'), sandbox: await seedWorld(server.api, 'sandbox') };
    expectStatus(await server.api.post('/auth/v1/method/token', { name: 'fuzz' }), 200);
    routes = routeTemplates(server);
    for (const route of routes.filter((r) => r.method === 'GET')) {
      const res = await server.api.get(fillTemplate(route.url, (param) => encodeURIComponent(valueFor(worlds.protected, route.url, param))));
      if (res.status === 200 && typeof res.body === 'object' && res.body !== null && 'nextPageToken' in res.body) lists.add(route.url);
    }
    protectedBefore = await snapshotOf(server, worlds.protected);
    protectedRevision = await revisionOf(server, worlds.protected.ns);
    sandboxRevision = await revisionOf(server, worlds.sandbox.ns);
  });

  /** Requests made, by status class: the run must have met every kind of answer. */
  const answered = new Map<string, number>();

  async function check(c: FuzzCase): Promise<void> {
    const res = await rawRequest(server.url, c.method, c.path, c.headers, c.body?.bytes);
    const problems = responseProblems(c, res, lists);
    const kind = `${Math.floor(res.status / 100)}xx`;
    answered.set(kind, (answered.get(kind) ?? 0) + 1);
    if (c.method === 'HEAD') problems.push(...(await headProblems(server.url, c, res)));
    if (c.write) {
      // Every committed write moves its namespace's revision (it is the first statement of
      // each write transaction), so a refused write leaves it where it was. The protected world
      // takes only requests that must be refused or delete something that is not there (200,
      // a no-op, as in Flipt): after those it must read back exactly as seeded.
      const revision = await revisionOf(server, worlds.protected.ns);
      if (revision !== protectedRevision) {
        const changed = res.status >= 400 ? 'refused, yet' : await changedPaths();
        if (changed !== '') problems.push(`the protected namespace changed: ${changed}`);
        protectedRevision = revision;
      }
      const sandbox = await revisionOf(server, worlds.sandbox.ns);
      if (res.status >= 400 && sandbox !== sandboxRevision) problems.push(`refused with ${res.status}, yet the sandbox changed`);
      sandboxRevision = sandbox;
    }
    if (problems.length > 0) throw new Error(`${problems.join('; ')} → ${res.status} ${decodedPreview(res.body)}`);
  }

  /** Where the protected world no longer reads as seeded. */
  async function changedPaths(): Promise<string> {
    const now = await snapshotOf(server, worlds.protected);
    const before = protectedBefore as typeof now;
    return Object.keys(now)
      .filter((path) => JSON.stringify(now[path]) !== JSON.stringify(before[path]))
      .map((path) => `${path} ${JSON.stringify(before[path]).slice(0, 300)} → ${JSON.stringify(now[path]).slice(0, 300)}`)
      .join('; ');
  }

  it('every route template holds the properties', { timeout: 600_000 }, async () => {
    expect(routes.length).toBeGreaterThan(60);
    expect(lists.size).toBeGreaterThanOrEqual(9);
    answered.clear();
    const failures: string[] = [];
    for (const [i, route] of routes.entries()) {
      const details = await fc.check(
        fc.asyncProperty(fuzzCase(route, worlds, BODY_LIMIT), (c) => check(c)),
        { seed: SEED + i, numRuns: RUNS, examples: [[routedCase(route, worlds)]] },
      );
      if (details.failed) {
        const counterexample = details.counterexample?.[0] as FuzzCase | undefined;
        failures.push(
          `${route.method} ${route.url} (seed ${details.seed}, path "${details.counterexample === null ? '' : details.counterexamplePath}"): ${
            counterexample ? describeCase(counterexample) : ''
          }\n  ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
        );
      }
    }
    expect(failures).toEqual([]);
    // Every route ran its runs (its first, routed request among them); both successes and refusals were met.
    const total = [...answered.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(routes.length * RUNS);
    expect(answered.get('2xx')).toBeGreaterThan(routes.length);
    expect(answered.get('4xx')).toBeGreaterThan(routes.length);
    console.info(`fuzz: ${total} requests over ${routes.length} routes: ${JSON.stringify(Object.fromEntries(answered))}`);
    // Still serving, and the protected namespace reads back as seeded.
    expect(expectStatus(await server.api.get('/health'), 200)).toEqual({ status: 'SERVING' });
    expect(await snapshotOf(server, worlds.protected)).toEqual(protectedBefore);
  });
});

function decodedPreview(body: Buffer): string {
  const text = body.toString('utf8');
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
