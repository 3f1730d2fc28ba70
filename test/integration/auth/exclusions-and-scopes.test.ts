import { beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, expectStatus, type ApiResponse, useServer } from '../../support/server';

/**
 * `authentication.exclude.*` and namespace-scoped tokens (Flipt's `internal/cmd/authn.go` and
 * `internal/server/authn/middleware/`): an excluded surface needs no token (and ignores any
 * Authorization header), the others still do; a token created with `namespaceKey` acts on its own namespace only, on the
 * management API, /evaluate/v1 (fast lane included) and the client snapshot, and nowhere else.
 */

const BOOTSTRAP = 'pennon-scopes-bootstrap-token';
const UNAUTHENTICATED = { code: 16, message: 'request was not authenticated', details: [] };
const BASE_ENV = {
  PENNON_AUTHENTICATION_REQUIRED: 'true',
  PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
  PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: BOOTSTRAP,
};

interface Call {
  label: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

const send = (api: ApiClient, c: Call) =>
  api.request(c.method, c.path, c.body ?? (c.method === 'POST' || c.method === 'PUT' ? {} : undefined), c.headers ?? {});

function expectUnauthenticated(res: ApiResponse, label: string): void {
  expect(res.status, `${label}: ${res.text}`).toBe(401);
  expect(res.body, label).toEqual(UNAUTHENTICATED);
  expect(res.headers.get('www-authenticate'), label).toContain('request was not authenticated');
}

function expectOfrepUnauthenticated(res: ApiResponse, label: string): void {
  expect(res.status, `${label}: ${res.text}`).toBe(401);
  expect(res.body, label).toEqual({ errorCode: 'GENERAL', errorDetails: 'request was not authenticated' });
}

function expectOk(res: ApiResponse, label: string): void {
  expect(res.status, `${label}: ${res.text}`).toBe(200);
}

/** Variant flag `f-var` (variant `on`), boolean flag `f-bool` and segment `seg` in a namespace. */
async function seed(api: ApiClient, ns: string): Promise<void> {
  const p = `/api/v1/namespaces/${ns}`;
  if (ns !== 'default') expectStatus(await api.post('/api/v1/namespaces', { key: ns, name: ns }), 200);
  expectStatus(await api.post(`${p}/flags`, { key: 'f-var', name: 'V', type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
  expectStatus(await api.post(`${p}/flags/f-var/variants`, { key: 'on' }), 200);
  expectStatus(await api.post(`${p}/flags`, { key: 'f-bool', name: 'B', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
  expectStatus(await api.post(`${p}/segments`, { key: 'seg', name: 'S', matchType: 'ALL_MATCH_TYPE' }), 200);
}

const eval1 = (flagKey: string, extra: Record<string, unknown> = {}) => ({ flagKey, entityId: 'e', ...extra });

/** One probe per route family of each surface; all answer 200 for an authorised caller. */
const SURFACES: Record<'management' | 'evaluation' | 'ofrep' | 'auth', Call[]> = {
  management: [
    { label: 'B list flags', method: 'GET', path: '/api/v1/namespaces/default/flags' },
    { label: 'A get flag', method: 'GET', path: '/api/v1/flags/f-var' },
    { label: 'list namespaces', method: 'GET', path: '/api/v1/namespaces' },
    { label: 'legacy evaluate', method: 'POST', path: '/api/v1/evaluate', body: eval1('f-var') },
    { label: 'legacy batch-evaluate', method: 'POST', path: '/api/v1/batch-evaluate', body: { requests: [eval1('f-var')] } },
  ],
  evaluation: [
    { label: 'variant (fast lane)', method: 'POST', path: '/evaluate/v1/variant', body: eval1('f-var') },
    { label: 'boolean (fast lane)', method: 'POST', path: '/evaluate/v1/boolean', body: eval1('f-bool') },
    { label: 'variant (Fastify)', method: 'POST', path: '/evaluate/v1/variant?via=fastify', body: eval1('f-var') },
    { label: 'batch', method: 'POST', path: '/evaluate/v1/batch', body: { requests: [eval1('f-var'), eval1('f-bool')] } },
    { label: 'snapshot', method: 'GET', path: '/internal/v1/evaluation/snapshot/namespace/default' },
  ],
  ofrep: [
    { label: 'ofrep single', method: 'POST', path: '/ofrep/v1/evaluate/flags/f-bool', body: { context: { targetingKey: 'e' } } },
    { label: 'ofrep bulk', method: 'POST', path: '/ofrep/v1/evaluate/flags', body: { context: { targetingKey: 'e' } } },
    { label: 'ofrep configuration', method: 'GET', path: '/ofrep/v1/configuration' },
  ],
  auth: [
    { label: 'list tokens', method: 'GET', path: '/auth/v1/tokens' },
    { label: 'self', method: 'GET', path: '/auth/v1/self' },
  ],
};

const EXCLUSIONS = [
  { env: 'PENNON_AUTHENTICATION_EXCLUDE_MANAGEMENT', open: ['management'] },
  { env: 'PENNON_AUTHENTICATION_EXCLUDE_EVALUATION', open: ['evaluation'] },
  { env: 'PENNON_AUTHENTICATION_EXCLUDE_OFREP', open: ['ofrep'] },
] as const;

for (const { env, open } of EXCLUSIONS) {
  describe(`${env}=true`, () => {
    const server = useServer({ ...BASE_ENV, [env]: 'true' });
    beforeAll(async () => {
      await seed(server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` }), 'default');
    });

    for (const [surface, calls] of Object.entries(SURFACES)) {
      const excluded = (open as readonly string[]).includes(surface);
      if (excluded) {
        it(`${surface} needs no token, and ignores a bad one`, async () => {
          for (const c of calls) {
            expectOk(await send(server.api, c), `${c.label} without a token`);
            expectOk(await send(server.api.withHeaders({ authorization: 'Bearer nope' }), c), `${c.label} with a bogus token`);
          }
        });
      } else {
        it(`${surface} still needs a token`, async () => {
          const admin = server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
          for (const c of calls) {
            const res = await send(server.api, c);
            if (surface === 'ofrep') expectOfrepUnauthenticated(res, c.label);
            else expectUnauthenticated(res, c.label);
            expectOk(await send(admin, c), `${c.label} with the bootstrap token`);
          }
        });
      }
    }

    if ((open as readonly string[]).includes('management')) {
      it('management exclusion covers every management verb, both families', async () => {
        expectOk(await server.api.post('/api/v1/namespaces/default/flags', { key: 'x1', name: 'x', type: 'BOOLEAN_FLAG_TYPE' }), 'B create');
        expectOk(await server.api.put('/api/v1/flags/x1', { name: 'x2' }), 'A update');
        expectOk(await server.api.post('/api/v1/namespaces', { key: 'open-ns', name: 'o' }), 'create namespace');
        expectOk(await server.api.delete('/api/v1/namespaces/default/flags/x1'), 'B delete');
        expectOk(await server.api.delete('/api/v1/namespaces/open-ns'), 'delete namespace');
      });
    }
  });
}

describe('namespace-scoped tokens', () => {
  const server = useServer(BASE_ENV);
  let admin: ApiClient;
  let scoped: ApiClient;
  let scopedToken: string;
  beforeAll(async () => {
    admin = server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
    await seed(admin, 'default');
    await seed(admin, 'ns1');
    await seed(admin, 'ns2');
    const created = expectStatus(await admin.post('/auth/v1/method/token', { name: 'scoped', namespaceKey: 'ns1' }), 200);
    expect(created.authentication.metadata['io.flipt.auth.token.namespace']).toBe('ns1');
    scopedToken = created.clientToken;
    scoped = server.api.withHeaders({ authorization: `Bearer ${scopedToken}` });
  });

  const B = '/api/v1/namespaces/ns1';
  const ALLOWED: Call[] = [
    { label: 'B list flags', method: 'GET', path: `${B}/flags` },
    { label: 'B get flag', method: 'GET', path: `${B}/flags/f-var` },
    { label: 'B create flag', method: 'POST', path: `${B}/flags`, body: { key: 's-b', name: 'S', type: 'VARIANT_FLAG_TYPE' } },
    { label: 'B update flag', method: 'PUT', path: `${B}/flags/s-b`, body: { name: 'S2' } },
    { label: 'B delete flag', method: 'DELETE', path: `${B}/flags/s-b` },
    { label: 'B update flag, body names default', method: 'PUT', path: `${B}/flags/f-var`, body: { namespaceKey: 'default', name: 'renamed' } },
    { label: 'B get segment', method: 'GET', path: `${B}/segments/seg` },
    { label: 'B legacy evaluate', method: 'POST', path: `${B}/evaluate`, body: eval1('f-var') },
    { label: 'A list flags (query)', method: 'GET', path: '/api/v1/flags?namespaceKey=ns1' },
    { label: 'A list flags (snake_case query)', method: 'GET', path: '/api/v1/flags?namespace_key=ns1' },
    { label: 'A get flag (query)', method: 'GET', path: '/api/v1/flags/f-var?namespaceKey=ns1' },
    { label: 'A create flag (body)', method: 'POST', path: '/api/v1/flags', body: { namespaceKey: 'ns1', key: 's-a', name: 'S', type: 'BOOLEAN_FLAG_TYPE' } },
    { label: 'A update flag (body)', method: 'PUT', path: '/api/v1/flags/s-a', body: { namespaceKey: 'ns1', name: 'S3' } },
    { label: 'A delete flag (query)', method: 'DELETE', path: '/api/v1/flags/s-a?namespaceKey=ns1' },
    { label: 'A legacy evaluate (body)', method: 'POST', path: '/api/v1/evaluate', body: eval1('f-var', { namespaceKey: 'ns1' }) },
    { label: 'A legacy batch (body)', method: 'POST', path: '/api/v1/batch-evaluate', body: { namespaceKey: 'ns1', requests: [eval1('f-var')] } },
    { label: 'variant (fast lane)', method: 'POST', path: '/evaluate/v1/variant', body: eval1('f-var', { namespaceKey: 'ns1' }) },
    { label: 'boolean (fast lane)', method: 'POST', path: '/evaluate/v1/boolean', body: eval1('f-bool', { namespaceKey: 'ns1' }) },
    { label: 'variant (Fastify)', method: 'POST', path: '/evaluate/v1/variant?via=fastify', body: eval1('f-var', { namespaceKey: 'ns1' }) },
    {
      label: 'batch, all ns1',
      method: 'POST',
      path: '/evaluate/v1/batch',
      body: { requests: [eval1('f-var', { namespaceKey: 'ns1' }), eval1('f-bool', { namespaceKey: 'ns1' })] },
    },
    { label: 'ns1 snapshot', method: 'GET', path: '/internal/v1/evaluation/snapshot/namespace/ns1' },
    { label: 'get namespace ns1', method: 'GET', path: B },
    { label: 'update namespace ns1', method: 'PUT', path: B, body: { name: 'Namespace one' } },
  ];

  const REFUSED: Call[] = [
    { label: 'B default flags', method: 'GET', path: '/api/v1/namespaces/default/flags' },
    { label: 'B default create', method: 'POST', path: '/api/v1/namespaces/default/flags', body: { key: 'z', name: 'z', type: 'BOOLEAN_FLAG_TYPE' } },
    { label: 'B ns2 flag', method: 'GET', path: '/api/v1/namespaces/ns2/flags/f-var' },
    { label: 'B ns2 delete', method: 'DELETE', path: '/api/v1/namespaces/ns2/flags/f-var' },
    { label: 'B default legacy evaluate', method: 'POST', path: '/api/v1/namespaces/default/evaluate', body: eval1('f-var') },
    { label: 'A list flags, no namespaceKey', method: 'GET', path: '/api/v1/flags' },
    { label: 'A get flag, namespaceKey=default', method: 'GET', path: '/api/v1/flags/f-var?namespaceKey=default' },
    { label: 'A get flag, namespaceKey=ns2', method: 'GET', path: '/api/v1/flags/f-var?namespaceKey=ns2' },
    { label: 'A create, no namespaceKey', method: 'POST', path: '/api/v1/flags', body: { key: 'z', name: 'z', type: 'BOOLEAN_FLAG_TYPE' } },
    // Body routes do not read the query: this one acts on `default`.
    { label: 'A create, ns1 only in query', method: 'POST', path: '/api/v1/flags?namespaceKey=ns1', body: { key: 'z', name: 'z', type: 'BOOLEAN_FLAG_TYPE' } },
    { label: 'A update, no namespaceKey', method: 'PUT', path: '/api/v1/flags/f-var', body: { name: 'hijack' } },
    { label: 'A delete, no namespaceKey', method: 'DELETE', path: '/api/v1/flags/f-var' },
    { label: 'A get segment, no namespaceKey', method: 'GET', path: '/api/v1/segments/seg' },
    { label: 'A legacy evaluate, no namespaceKey', method: 'POST', path: '/api/v1/evaluate', body: eval1('f-var') },
    { label: 'A legacy batch, no namespaceKey', method: 'POST', path: '/api/v1/batch-evaluate', body: { requests: [eval1('f-var', { namespaceKey: 'ns1' })] } },
    { label: 'variant, no namespaceKey (fast lane)', method: 'POST', path: '/evaluate/v1/variant', body: eval1('f-var') },
    { label: 'boolean, namespaceKey default (fast lane)', method: 'POST', path: '/evaluate/v1/boolean', body: eval1('f-bool', { namespaceKey: 'default' }) },
    { label: 'boolean, namespaceKey ns2 (fast lane)', method: 'POST', path: '/evaluate/v1/boolean', body: eval1('f-bool', { namespaceKey: 'ns2' }) },
    { label: 'variant, no namespaceKey (Fastify)', method: 'POST', path: '/evaluate/v1/variant?via=fastify', body: eval1('f-var') },
    {
      label: 'batch, ns1 and default',
      method: 'POST',
      path: '/evaluate/v1/batch',
      body: { requests: [eval1('f-var', { namespaceKey: 'ns1' }), eval1('f-bool')] },
    },
    {
      label: 'batch, ns1 and ns2',
      method: 'POST',
      path: '/evaluate/v1/batch',
      body: { requests: [eval1('f-var', { namespaceKey: 'ns1' }), eval1('f-bool', { namespaceKey: 'ns2' })] },
    },
    { label: 'batch, default only', method: 'POST', path: '/evaluate/v1/batch', body: { requests: [eval1('f-var')] } },
    { label: 'default snapshot', method: 'GET', path: '/internal/v1/evaluation/snapshot/namespace/default' },
    { label: 'ns2 snapshot', method: 'GET', path: '/internal/v1/evaluation/snapshot/namespace/ns2' },
    { label: 'list namespaces', method: 'GET', path: '/api/v1/namespaces' },
    { label: 'get namespace default', method: 'GET', path: '/api/v1/namespaces/default' },
    { label: 'update namespace ns2', method: 'PUT', path: '/api/v1/namespaces/ns2', body: { name: 'taken' } },
    { label: 'delete namespace ns2', method: 'DELETE', path: '/api/v1/namespaces/ns2' },
    { label: 'create namespace ns3', method: 'POST', path: '/api/v1/namespaces', body: { key: 'ns3', name: 'ns3' } },
    { label: 'list tokens', method: 'GET', path: '/auth/v1/tokens' },
    { label: 'self', method: 'GET', path: '/auth/v1/self' },
    { label: 'create token', method: 'POST', path: '/auth/v1/method/token', body: { name: 'child' } },
    { label: 'create token in ns1', method: 'POST', path: '/auth/v1/method/token', body: { name: 'child', namespaceKey: 'ns1' } },
    { label: 'expire self', method: 'PUT', path: '/auth/v1/self/expire' },
  ];

  const OFREP_NS1: Call[] = SURFACES.ofrep.map((c) => ({ ...c, headers: { 'x-flipt-namespace': 'ns1' } }));

  it('is allowed on its own namespace: management (both families), /evaluate/v1, the snapshot', async () => {
    for (const c of ALLOWED) expectOk(await send(scoped, c), c.label);
  });

  it('acts on ns1 for real', async () => {
    const flag = expectStatus(await scoped.post(`${B}/flags`, { key: 'proof', name: 'P', type: 'BOOLEAN_FLAG_TYPE' }), 200);
    expect(flag.namespaceKey).toBe('ns1');
    expectStatus(await admin.get('/api/v1/namespaces/ns1/flags/proof'), 200);
    expect((await admin.get('/api/v1/namespaces/default/flags/proof')).status).toBe(404);
    expect(expectStatus(await admin.get(B), 200).name).toBe('Namespace one');
    // Family B: the path's namespace wins over the body's.
    expect(expectStatus(await admin.get(`${B}/flags/f-var`), 200).name).toBe('renamed');
    expect(expectStatus(await admin.get('/api/v1/namespaces/default/flags/f-var'), 200).name).toBe('V');
    const snap = expectStatus(await scoped.get('/internal/v1/evaluation/snapshot/namespace/ns1'), 200);
    expect(snap.namespace).toEqual({ key: 'ns1' });
  });

  it('is refused elsewhere: other namespaces, no single namespace, /auth/v1', async () => {
    for (const c of REFUSED) expectUnauthenticated(await send(scoped, c), c.label);
  });

  it('is refused on OFREP, even with X-Flipt-Namespace: ns1', async () => {
    for (const c of OFREP_NS1) {
      expectOfrepUnauthenticated(await send(scoped, c), c.label);
      expectOk(await send(admin, c), `${c.label} with the bootstrap token`);
    }
  });

  it('changed nothing while refused, and the token still works', async () => {
    expect(expectStatus(await admin.get('/api/v1/namespaces/default/flags/f-var'), 200).name).toBe('V');
    expectStatus(await admin.get('/api/v1/namespaces/ns2/flags/f-var'), 200);
    expect((await admin.get('/api/v1/namespaces/ns3')).status).toBe(404);
    expect((await admin.get('/api/v1/namespaces/default/flags/z')).status).toBe(404);
    const tokens = expectStatus(await admin.get('/auth/v1/tokens'), 200).authentications;
    expect(tokens.map((a: { metadata: Record<string, string> }) => a.metadata['io.flipt.auth.token.name'])).not.toContain('child');
    const mine = tokens.find((a: { metadata: Record<string, string> }) => a.metadata['io.flipt.auth.token.name'] === 'scoped');
    expect(mine).toBeDefined();
    expect(mine).not.toHaveProperty('expiresAt');
    expectOk(await send(scoped, ALLOWED[0]!), 'still valid');
  });

  it('cannot reach default through a null namespaceKey next to namespace_key: "ns1"', async () => {
    // The namespace the gate checks must be the one evaluated. protojson refuses the pair
    // (`duplicate field`, 400); refusing it with 401 is safe too; evaluating `default` is not.
    expectStatus(await admin.post('/api/v1/namespaces/default/flags', { key: 'leak', name: 'L', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
    expectStatus(await admin.post('/api/v1/namespaces/default/flags', { key: 'leak-v', name: 'L', type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
    const sneaky = { namespaceKey: null, namespace_key: 'ns1', flagKey: 'leak', entityId: 'e' };
    const sneakyVariant = { ...sneaky, flagKey: 'leak-v' };
    const calls: Call[] = [
      { label: 'boolean (fast lane)', method: 'POST', path: '/evaluate/v1/boolean', body: sneaky },
      { label: 'boolean (Fastify)', method: 'POST', path: '/evaluate/v1/boolean?via=fastify', body: sneaky },
      { label: 'variant (fast lane)', method: 'POST', path: '/evaluate/v1/variant', body: sneakyVariant },
      { label: 'variant (Fastify)', method: 'POST', path: '/evaluate/v1/variant?via=fastify', body: sneakyVariant },
      { label: 'batch', method: 'POST', path: '/evaluate/v1/batch', body: { requests: [sneaky] } },
      { label: 'legacy evaluate', method: 'POST', path: '/api/v1/evaluate', body: sneaky },
    ];
    const leaks: string[] = [];
    for (const c of calls) {
      const res = await send(scoped, c);
      if (![400, 401].includes(res.status) || /"(enabled|match)"/.test(res.text)) leaks.push(`${c.label}: ${res.status} ${res.text}`);
    }
    expect(leaks, `evaluated in default with an ns1 token:\n${leaks.join('\n')}`).toEqual([]);
  });

  it('a token scoped to default: an absent namespace counts as default', async () => {
    const { clientToken } = expectStatus(await admin.post('/auth/v1/method/token', { name: 'dflt', namespaceKey: 'default' }), 200);
    const api = server.api.withHeaders({ authorization: `Bearer ${clientToken}` });
    expectOk(await api.get('/api/v1/flags'), 'A list flags');
    expectOk(await api.post('/evaluate/v1/boolean', eval1('f-bool')), 'boolean (fast lane)');
    expectOk(await api.post('/evaluate/v1/batch', { requests: [eval1('f-var'), eval1('f-bool', { namespaceKey: 'default' })] }), 'batch');
    expectOk(await api.post('/api/v1/evaluate', eval1('f-var')), 'legacy evaluate');
    expectUnauthenticated(await api.get('/api/v1/namespaces/ns1/flags'), 'ns1 flags');
    expectUnauthenticated(await api.post('/evaluate/v1/boolean', eval1('f-bool', { namespaceKey: 'ns1' })), 'ns1 boolean');
    expectUnauthenticated(await api.get('/api/v1/namespaces'), 'list namespaces');
  });
});
