import { beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, useServer, type ApiResponse, type TestServer } from '../../support/server';
import {
  caseStore,
  checkAnswer,
  constraintsValidForApi,
  expressibleThroughApi,
  loadEvaluations,
  seedThroughApi,
  seedThroughStore,
  type EvaluationCase,
} from '../../support/vectors';

/**
 * Every evaluator case of test/fixtures/evaluation through the HTTP API: the case's store is
 * built with the management API, then evaluated through the surface the case names. (Cases
 * that only describe pure transformations — OFREP mapping with mocked evaluations, matcher
 * internals — are in test/unit.)
 */
const { cases, datasets } = loadEvaluations();
const RESPONSE_TYPE: Record<string, string> = {
  boolean: 'BOOLEAN_EVALUATION_RESPONSE_TYPE',
  variant: 'VARIANT_EVALUATION_RESPONSE_TYPE',
  error: 'ERROR_EVALUATION_RESPONSE_TYPE',
};

const apiCases = cases.filter((c) => expressibleThroughApi(caseStore(datasets, c).store));
/** Titled by their source, in full (`$source` would be cut at 40 characters). */
const titled = (list: EvaluationCase[]) => list.map((c) => [c.source, c] as const);

/** Sends a case's request through its surface. */
function send(server: TestServer, c: EvaluationCase): Promise<ApiResponse> {
  const r = c.request;
  const ns = r.namespaceKey || caseStore(datasets, c).namespaceKey;
  switch (c.call) {
    case 'legacy':
      return server.api.post(`/api/v1/namespaces/${ns}/evaluate`, r);
    case 'legacy-batch':
      return server.api.post(`/api/v1/namespaces/${ns}/batch-evaluate`, r);
    case 'variant':
    case 'boolean':
      return server.api.post(`/evaluate/v1/${c.call}`, { ...r, namespaceKey: ns });
    case 'batch':
      return server.api.post('/evaluate/v1/batch', r);
    case 'ofrep':
      return server.api.request('POST', `/ofrep/v1/evaluate/flags/${r.flagKey}`, { context: r.context }, { 'X-Flipt-Namespace': ns });
  }
}

function check(c: EvaluationCase, res: ApiResponse): void {
  if (c.error) {
    expect(res.status, `${c.source}: ${res.text}`).toBe(c.error.status);
    if (c.error.ofrepCode) {
      expect(res.body.errorCode, c.source).toBe(c.error.ofrepCode);
      return;
    }
    expect(res.body.code).toBe(c.error.code);
    if (c.error.message) expect(res.body.message).toBe(c.error.message);
    return;
  }
  expect(res.status, `${c.source}: ${res.text}`).toBe(200);
  if (c.call === 'ofrep') {
    const body = res.body;
    const want = c.answer ?? {};
    if ('value' in want) expect(body.value).toEqual(want.value);
    if ('variant' in want) expect(body.variant).toBe(want.variant);
    if ('reason' in want) expect(body.reason).toBe(want.reason);
    if ('key' in want) expect(body.key).toBe(want.key);
    if (c.body) expect(body).toEqual(c.body);
    return;
  }
  if (c.call === 'batch' || c.call === 'legacy-batch') {
    const responses = res.body.responses as Record<string, any>[];
    if (c.count !== undefined) expect(responses).toHaveLength(c.count);
    for (const [i, item] of (c.answers ?? []).entries()) {
      const got = responses[i];
      const { as, ...fields } = item;
      if (as) expect(got.type, `${c.source}[${i}]`).toBe(RESPONSE_TYPE[as]);
      if (as === 'error') expect(got.errorResponse).toMatchObject(fields);
      else if (as) checkAnswer(got.variantResponse ?? got.booleanResponse, fields, `${c.source}[${i}]`);
      else checkAnswer(got, fields, `${c.source}[${i}]`);
    }
    return;
  }
  checkAnswer(res.body, c.answer ?? {}, c.source, c.request);
}

describe('evaluation vectors through the HTTP API: per-case setups', () => {
  const server = useServer();

  it.each(titled(apiCases.filter((c) => c.store)))('%s', async (_source, c) => {
    const { namespaceKey, store } = caseStore(datasets, c);
    // A clean namespace per case: the cases reuse flag keys.
    await server.api.delete(`/api/v1/namespaces/${namespaceKey}?force=true`);
    expectStatus(await server.api.post('/api/v1/namespaces', { key: namespaceKey, name: namespaceKey }), 200);
    // Unit-test data the API refuses (e.g. a constraint without a property) goes in through the store.
    if (constraintsValidForApi(store)) await seedThroughApi(server.api, namespaceKey, store);
    else await seedThroughStore(server.service.store, namespaceKey, store);
    check(c, await send(server, c));
  });
});

for (const dataset of Object.keys(datasets)) {
  describe(`evaluation vectors through the HTTP API: dataset ${dataset}`, () => {
    const server = useServer();
    beforeAll(async () => {
      await seedThroughApi(server.api, datasets[dataset].namespace, datasets[dataset]);
    });

    it.each(titled(apiCases.filter((c) => c.dataset === dataset)))('%s', async (_source, c) => check(c, await send(server, c)));
  });
}

describe('evaluation vectors: coverage', () => {
  it('runs every evaluator case through HTTP, except those the API cannot build (out-of-order ranks)', () => {
    const left = cases.filter((c) => !apiCases.includes(c));
    // Only cases built to exercise Flipt's "rank detected out of order" error are left out;
    // test/unit/evaluation-vectors.test.ts runs them through the pure evaluator.
    for (const c of left) expect(c.error?.message, c.source).toMatch(/out of order/);
    expect(apiCases.length).toBeGreaterThan(60);
  });
});
