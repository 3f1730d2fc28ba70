import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testLicence } from '../../support/git-fixtures';
import { startGitRemote, type GitRemote } from '../../support/git-remote';
import { rawRequest } from '../../support/raw-http';
import { fillTemplate, routeTemplates, type RouteTemplate } from '../../support/route-templates';
import { expectStatus, useServer } from '../../support/server';
import { buildDelivery, DELIVERY_KINDS, TEST_WEBHOOK_SECRET } from '../../support/webhook-deliveries';
import { anyBody, hostileSegment } from './fuzz/arbitraries';
import { headProblems, responseProblems } from './fuzz/checks';
import { describeCase, fuzzCase, routedCase, type FuzzCase } from './fuzz/fuzz-case';
import { valueFor, type World } from './fuzz/world';

/**
 * The fuzz of fuzz.test.ts over an instance whose flags come from Git (Flipt v2 environments)
 * with the webhook licensed: the routes only such an instance has (`/api/v2/environments`,
 * `POST /api/v2/webhooks/{environment}`, the latter with deliveries signed for the
 * environment, so hostile payloads reach the provider parsers), and every read route served
 * from a Git snapshot. Writes are left to fuzz.test.ts: on Git they are refused as Flipt's
 * read-only storage refuses them (a 500, as Flipt answers). Same seed and run-count variables.
 */
const SEED = Number(process.env.PENNON_FUZZ_SEED ?? 20260113);
const RUNS = Number(process.env.PENNON_FUZZ_RUNS ?? 10);
const BODY_LIMIT = 512 * 1024;
const WEBHOOK = '/api/v2/webhooks/:environment';

const FEATURES = `version: "1.4"
namespace: fuzz
flags:
  - key: fuzz-flag
    name: Fuzz flag
    enabled: true
    metadata: { team: qa }
    variants:
      - { key: v1, attachment: { a: [1, { b: null }] } }
      - { key: v2 }
    rules:
      - segment: fuzz-seg
        distributions: [{ variant: v1, rollout: 100 }]
  - key: fuzz-bool
    name: Fuzz boolean
    type: BOOLEAN_FLAG_TYPE
    enabled: true
    rollouts:
      - threshold: { percentage: 50, value: true }
segments:
  - key: fuzz-seg
    name: Fuzz segment
    match_type: ANY_MATCH_TYPE
    constraints:
      - { type: STRING_COMPARISON_TYPE, property: region, operator: isoneof, value: '["eu","us"]' }
`;

describe(`fuzzing a Git-backed instance (seed ${SEED}, ${RUNS} runs per route)`, () => {
  let remote: GitRemote;
  let world: World;
  let routes: RouteTemplate[];
  const lists = new Set<string>();

  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit({ 'prod/fuzz/features.yaml': FEATURES });
  });
  afterAll(async () => {
    await remote?.close();
  });
  const server = useServer(() => ({
    PENNON_SERVER_MAX_BODY_BYTES: String(BODY_LIMIT),
    PENNON_LICENSE_KEY: testLicence(),
    PENNON_STORAGE_FLAGS_REMOTE: remote.url,
    PENNON_STORAGE_FLAGS_POLL_INTERVAL: '1h',
    PENNON_ENVIRONMENTS_PROD_STORAGE: 'flags',
    PENNON_ENVIRONMENTS_PROD_DIRECTORY: 'prod',
    PENNON_ENVIRONMENTS_PROD_SCM_TYPE: 'github',
    PENNON_ENVIRONMENTS_PROD_SCM_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  }));

  beforeAll(async () => {
    // The ids Git-backed items get are the server's: read them back.
    const p = '/api/v1/namespaces/fuzz';
    const flag = expectStatus(await server.api.get(`${p}/flags/fuzz-flag`), 200);
    const rule = expectStatus(await server.api.get(`${p}/flags/fuzz-flag/rules`), 200).rules[0];
    const segment = expectStatus(await server.api.get(`${p}/segments/fuzz-seg`), 200);
    const rollout = expectStatus(await server.api.get(`${p}/flags/fuzz-bool/rollouts`), 200).rules[0];
    world = {
      ns: 'fuzz',
      flag: 'fuzz-flag',
      bool: 'fuzz-bool',
      seg: 'fuzz-seg',
      variant: flag.variants[0].id,
      rule: rule.id,
      constraint: segment.constraints[0].id,
      distribution: rule.distributions[0].id,
      rollout: rollout.id,
    };
    routes = routeTemplates(server);
    for (const route of routes.filter((r) => r.method === 'GET')) {
      const res = await server.api.get(fillTemplate(route.url, (param) => encodeURIComponent(valueFor(world, route.url, param))));
      if (res.status === 200 && typeof res.body === 'object' && res.body !== null && 'nextPageToken' in res.body) lists.add(route.url);
    }
  });

  /** Signed deliveries of every provider to the environment (or to a hostile name), with any body. */
  function webhookCase(route: RouteTemplate): fc.Arbitrary<FuzzCase> {
    const environment = fc.oneof({ arbitrary: fc.constant('prod'), weight: 4 }, { arbitrary: hostileSegment(new Set(['prod'])), weight: 1 });
    return fc.record({ kind: fc.constantFrom(...DELIVERY_KINDS), body: anyBody(world.ns, BODY_LIMIT), environment }).map(({ kind, body, environment }) => {
      const delivery = buildDelivery(kind, { body: body.bytes });
      return { route, method: 'POST', target: 'protected', path: `/api/v2/webhooks/${environment}`, headers: delivery.headers, body, write: false, seeded: environment === 'prod' };
    });
  }

  it('every read route, the environments and the webhook hold the properties', { timeout: 600_000 }, async () => {
    const fuzzed = routes.filter((r) => r.method === 'GET' || r.method === 'HEAD' || r.url === WEBHOOK || r.spec.surface === 'evaluation' || r.spec.surface === 'ofrep');
    expect(fuzzed.map((r) => r.url)).toEqual(expect.arrayContaining(['/api/v2/environments', WEBHOOK]));
    const failures: string[] = [];
    for (const [i, route] of fuzzed.entries()) {
      const cases = route.url === WEBHOOK ? webhookCase(route) : fuzzCase(route, { protected: world, sandbox: world }, BODY_LIMIT).filter((c) => !c.write);
      const details = await fc.check(
        fc.asyncProperty(cases, async (c) => {
          const res = await rawRequest(server.url, c.method, c.path, c.headers, c.body?.bytes);
          const problems = responseProblems(c, res, lists);
          if (c.method === 'HEAD') problems.push(...(await headProblems(server.url, c, res)));
          if (problems.length > 0) throw new Error(`${problems.join('; ')} → ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
        }),
        { seed: SEED + i, numRuns: RUNS, examples: route.url === WEBHOOK ? [] : [[routedCase(route, { protected: world, sandbox: world })]] },
      );
      if (details.failed) {
        const counterexample = details.counterexample?.[0] as FuzzCase | undefined;
        const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        failures.push(`${route.method} ${route.url} (seed ${details.seed}, path "${details.counterexamplePath}"): ${counterexample ? describeCase(counterexample) : ''}\n  ${error}`);
      }
    }
    expect(failures).toEqual([]);
    expect(expectStatus(await server.api.get('/health'), 200)).toEqual({ status: 'SERVING' });
  });
});
