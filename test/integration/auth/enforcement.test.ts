import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/clock';
import { ApiClient, expectStatus, type ApiResponse, startServer, type TestServer, useServer } from '../../support/server';

/**
 * Enforcement with `authentication.required: true` (Flipt's `internal/server/authn/middleware/`):
 * every surface refuses a request without a valid token with 401, before looking at the body;
 * the public routes (/health, /auth/v1/method) and unknown routes never ask for one. The
 * evaluation fast lane (POST /evaluate/v1/variant and /boolean, answered before Fastify) is
 * checked alongside the Fastify routes.
 */

const BOOTSTRAP = 'pennon-enforcement-bootstrap-token';
const UNAUTHENTICATED = { code: 16, message: 'request was not authenticated', details: [] };

interface Call {
  label: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  /** The status an authenticated (bootstrap-token) caller gets. */
  ok: number;
}

const send = (api: ApiClient, c: { method: string; path: string; body?: unknown }) =>
  api.request(c.method, c.path, c.body ?? (c.method === 'POST' || c.method === 'PUT' ? {} : undefined));

function expectUnauthenticated(res: ApiResponse, label = ''): void {
  expect(res.status, `${label}: ${res.text}`).toBe(401);
  expect(res.body, label).toEqual(UNAUTHENTICATED);
  expect(Object.keys(res.body), label).toEqual(['code', 'message', 'details']);
  expect(res.headers.get('content-type'), label).toMatch(/^application\/json/);
  expect(res.headers.get('www-authenticate'), label).toContain('request was not authenticated');
}

function expectOfrepUnauthenticated(res: ApiResponse, label = ''): void {
  expect(res.status, `${label}: ${res.text}`).toBe(401);
  expect(res.body, label).toEqual({ errorCode: 'GENERAL', errorDetails: 'request was not authenticated' });
  expect(res.headers.get('content-type'), label).toMatch(/^application\/json/);
}

// Family B management, Family A management, namespaces, legacy evaluation, /evaluate/v1
// (fast lane and Fastify), the client snapshot and /auth/v1. Order matters for the
// authenticated pass: creations come before the deletions of the same resources.
const GUARDED: Call[] = [
  { label: 'B list flags', method: 'GET', path: '/api/v1/namespaces/default/flags', ok: 200 },
  { label: 'B get flag', method: 'GET', path: '/api/v1/namespaces/default/flags/f-var', ok: 200 },
  { label: 'B create flag', method: 'POST', path: '/api/v1/namespaces/default/flags', body: { key: 'b-new', name: 'B', type: 'VARIANT_FLAG_TYPE' }, ok: 200 },
  { label: 'B update flag', method: 'PUT', path: '/api/v1/namespaces/default/flags/f-var', body: { name: 'F var' }, ok: 200 },
  { label: 'B delete flag', method: 'DELETE', path: '/api/v1/namespaces/default/flags/b-new', ok: 200 },
  { label: 'B get segment', method: 'GET', path: '/api/v1/namespaces/default/segments/seg', ok: 200 },
  { label: 'B create segment', method: 'POST', path: '/api/v1/namespaces/default/segments', body: { key: 'seg-b', name: 'S', matchType: 'ALL_MATCH_TYPE' }, ok: 200 },
  { label: 'B update segment', method: 'PUT', path: '/api/v1/namespaces/default/segments/seg-b', body: { name: 'S2', matchType: 'ANY_MATCH_TYPE' }, ok: 200 },
  { label: 'B delete segment', method: 'DELETE', path: '/api/v1/namespaces/default/segments/seg-b', ok: 200 },
  { label: 'A list flags', method: 'GET', path: '/api/v1/flags', ok: 200 },
  { label: 'A get flag', method: 'GET', path: '/api/v1/flags/f-var', ok: 200 },
  { label: 'A create flag', method: 'POST', path: '/api/v1/flags', body: { key: 'a-new', name: 'A', type: 'BOOLEAN_FLAG_TYPE' }, ok: 200 },
  { label: 'A update flag', method: 'PUT', path: '/api/v1/flags/a-new', body: { name: 'A2' }, ok: 200 },
  { label: 'A delete flag', method: 'DELETE', path: '/api/v1/flags/a-new', ok: 200 },
  { label: 'A get segment', method: 'GET', path: '/api/v1/segments/seg', ok: 200 },
  { label: 'list namespaces', method: 'GET', path: '/api/v1/namespaces', ok: 200 },
  { label: 'get namespace', method: 'GET', path: '/api/v1/namespaces/default', ok: 200 },
  { label: 'create namespace', method: 'POST', path: '/api/v1/namespaces', body: { key: 'ns-new', name: 'N' }, ok: 200 },
  { label: 'update namespace', method: 'PUT', path: '/api/v1/namespaces/ns-new', body: { name: 'N2' }, ok: 200 },
  { label: 'delete namespace', method: 'DELETE', path: '/api/v1/namespaces/ns-new', ok: 200 },
  { label: 'legacy evaluate (A)', method: 'POST', path: '/api/v1/evaluate', body: { flagKey: 'f-var', entityId: 'e' }, ok: 200 },
  { label: 'legacy evaluate (B)', method: 'POST', path: '/api/v1/namespaces/default/evaluate', body: { flagKey: 'f-var', entityId: 'e' }, ok: 200 },
  { label: 'legacy batch-evaluate', method: 'POST', path: '/api/v1/batch-evaluate', body: { requests: [{ flagKey: 'f-var', entityId: 'e' }] }, ok: 200 },
  { label: 'variant (fast lane)', method: 'POST', path: '/evaluate/v1/variant', body: { flagKey: 'f-var', entityId: 'e' }, ok: 200 },
  { label: 'boolean (fast lane)', method: 'POST', path: '/evaluate/v1/boolean', body: { flagKey: 'f-bool', entityId: 'e' }, ok: 200 },
  { label: 'variant (fast lane, slash)', method: 'POST', path: '/evaluate/v1/variant/', body: { flagKey: 'f-var', entityId: 'e' }, ok: 200 },
  { label: 'variant (Fastify)', method: 'POST', path: '/evaluate/v1/variant?via=fastify', body: { flagKey: 'f-var', entityId: 'e' }, ok: 200 },
  { label: 'boolean (Fastify)', method: 'POST', path: '/evaluate/v1/boolean?via=fastify', body: { flagKey: 'f-bool', entityId: 'e' }, ok: 200 },
  {
    label: 'batch',
    method: 'POST',
    path: '/evaluate/v1/batch',
    body: { requests: [{ flagKey: 'f-var', entityId: 'e' }, { flagKey: 'f-bool', entityId: 'e' }] },
    ok: 200,
  },
  { label: 'snapshot', method: 'GET', path: '/internal/v1/evaluation/snapshot/namespace/default', ok: 200 },
  { label: 'list tokens', method: 'GET', path: '/auth/v1/tokens', ok: 200 },
  { label: 'create token', method: 'POST', path: '/auth/v1/method/token', body: { name: 'from-table' }, ok: 200 },
  { label: 'delete token', method: 'DELETE', path: '/auth/v1/tokens/00000000-0000-4000-8000-000000000000', ok: 200 },
  { label: 'self', method: 'GET', path: '/auth/v1/self', ok: 200 },
];

const OFREP: Call[] = [
  { label: 'ofrep single', method: 'POST', path: '/ofrep/v1/evaluate/flags/f-bool', body: { context: { targetingKey: 'e' } }, ok: 200 },
  { label: 'ofrep bulk', method: 'POST', path: '/ofrep/v1/evaluate/flags', body: { context: { targetingKey: 'e' } }, ok: 200 },
  { label: 'ofrep configuration', method: 'GET', path: '/ofrep/v1/configuration', ok: 200 },
];

/** One management route and the fast-lane evaluation route: where a refused credential is tried. */
const PROBES = [
  { method: 'GET', path: '/api/v1/namespaces/default/flags' },
  { method: 'POST', path: '/evaluate/v1/boolean', body: { flagKey: 'f-bool', entityId: 'e' } },
] as const;

describe('authentication required', () => {
  let admin: ApiClient;
  // Expiry and the 1 s lookup cache read this clock: the tests move it rather than wait.
  const clock = new ManualClock();
  const server = useServer(
    {
      PENNON_AUTHENTICATION_REQUIRED: 'true',
      PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: BOOTSTRAP,
      // These tests present dozens of refused tokens from one address under a clock that barely
      // moves: the failure limit (test/integration/auth/rate-limit.test.ts) would answer 429.
      PENNON_AUTHENTICATION_RATE_LIMIT_ENABLED: 'false',
    },
    { clock },
  );
  const as = (token: string) => server.api.withHeaders({ authorization: `Bearer ${token}` });
  const newToken = async (body: Record<string, unknown> = {}) =>
    expectStatus(await admin.post('/auth/v1/method/token', { name: 'enforcement', ...body }), 200) as {
      clientToken: string;
      authentication: { id: string; expiresAt?: string; metadata: Record<string, string> };
    };
  /** Both probes answer 200 for this header. */
  const expectAccepted = async (authorization: string) => {
    for (const p of PROBES) expectStatus(await send(server.api.withHeaders({ authorization }), p), 200);
  };
  const expectRefused = async (authorization: string | undefined, label: string) => {
    const api = authorization === undefined ? server.api : server.api.withHeaders({ authorization });
    for (const p of PROBES) expectUnauthenticated(await send(api, p), `${label} on ${p.path}`);
  };

  beforeAll(async () => {
    admin = as(BOOTSTRAP);
    const p = '/api/v1/namespaces/default';
    expectStatus(await admin.post(`${p}/flags`, { key: 'f-var', name: 'V', type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
    expectStatus(await admin.post(`${p}/flags/f-var/variants`, { key: 'on' }), 200);
    expectStatus(await admin.post(`${p}/flags`, { key: 'f-bool', name: 'B', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
    expectStatus(await admin.post(`${p}/segments`, { key: 'seg', name: 'S', matchType: 'ALL_MATCH_TYPE' }), 200);
  });

  describe('every surface', () => {
    it('refuses a request without Authorization with 401 and WWW-Authenticate', async () => {
      for (const c of [...GUARDED, { label: 'expire self', method: 'PUT', path: '/auth/v1/self/expire', ok: 200 } as Call]) {
        expectUnauthenticated(await send(server.api, c), c.label);
      }
    });

    it('refuses OFREP without Authorization with 401 and the OFREP error body', async () => {
      for (const c of OFREP) expectOfrepUnauthenticated(await send(server.api, c), c.label);
    });

    it('accepts the bootstrap token everywhere', async () => {
      for (const c of [...GUARDED, ...OFREP]) {
        const res = await send(admin, c);
        expect(res.status, `${c.label}: ${res.text}`).toBe(c.ok);
      }
    });

    it('refuses a bogus token on every surface', async () => {
      const bogus = server.api.withHeaders({ authorization: 'Bearer nope' });
      for (const c of GUARDED) expectUnauthenticated(await send(bogus, c), c.label);
      for (const c of OFREP) expectOfrepUnauthenticated(await send(bogus, c), c.label);
    });
  });

  describe('public and unknown routes', () => {
    it('/health needs no token, and ignores a bad one', async () => {
      for (const api of [server.api, server.api.withHeaders({ authorization: 'Bearer nope' })]) {
        expect(expectStatus(await api.get('/health'), 200)).toEqual({ status: 'SERVING' });
      }
    });

    it('GET /auth/v1/method needs no token, and ignores a bad one', async () => {
      for (const api of [server.api, server.api.withHeaders({ authorization: 'Basic Zm9vOmJhcg==' })]) {
        const body = expectStatus(await api.get('/auth/v1/method'), 200);
        expect(body.methods).toHaveLength(5);
        expect(body.methods[0]).toMatchObject({ method: 'METHOD_TOKEN', enabled: true });
      }
    });

    it('unknown routes answer 404 Not Found with or without a token', async () => {
      for (const api of [server.api, server.api.withHeaders({ authorization: 'Bearer nope' }), admin]) {
        for (const [method, path] of [
          ['GET', '/api/v1/nothing-here'],
          ['GET', '/evaluate/v1/nothing'],
          ['POST', '/evaluate/v1/nothing'],
          ['GET', '/auth/v1/nothing'],
          ['GET', '/no/such/route'],
        ] as const) {
          const res = await api.request(method, path, method === 'POST' ? {} : undefined);
          expect(res.status, `${method} ${path}`).toBe(404);
          expect(res.body).toEqual({ code: 5, message: 'Not Found', details: [] });
        }
      }
    });

    it('a known path with the wrong method answers 501 without asking for a token', async () => {
      const res = await server.api.request('PATCH', '/api/v1/namespaces/default/flags/f-var', {});
      expect(res.status, res.text).toBe(501);
      expect(res.body).toEqual({ code: 12, message: 'Method Not Allowed', details: [] });
    });
  });

  describe('credentials', () => {
    it('accepts the bootstrap token on both probes', async () => {
      await expectAccepted(`Bearer ${BOOTSTRAP}`);
    });

    it('refuses malformed Authorization headers', async () => {
      const { clientToken } = await newToken();
      await expectAccepted(`Bearer ${clientToken}`);
      const malformed = [
        'Bearer',
        'Bearer ',
        `bearer ${clientToken}`,
        `BEARER ${clientToken}`,
        `Bearer  ${clientToken}`,
        `Bearer ${clientToken}x`,
        `Bearer ${clientToken.slice(0, -1)}`,
        `Basic ${Buffer.from(`user:${clientToken}`).toString('base64')}`,
        `JWT ${clientToken}`,
        `Token ${clientToken}`,
        clientToken,
        `Bearer ${BOOTSTRAP.toUpperCase()}`,
      ];
      for (const header of malformed) await expectRefused(header, JSON.stringify(header));
    });

    it('refuses an unknown token', async () => {
      const unknown = randomBytes(32).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
      await expectRefused(`Bearer ${unknown}`, 'unknown token');
    });

    it('refuses a deleted token at once', async () => {
      const { clientToken, authentication } = await newToken();
      await expectAccepted(`Bearer ${clientToken}`); // now in the lookup cache
      expect(expectStatus(await admin.delete(`/auth/v1/tokens/${authentication.id}`), 200)).toEqual({});
      await expectRefused(`Bearer ${clientToken}`, 'deleted token');
      expectUnauthenticated(await as(clientToken).get('/auth/v1/tokens'), 'deleted token on /auth/v1/tokens');
    });

    it('refuses a token once it expires, one expired with PUT /auth/v1/self/expire, and one deleted elsewhere', async () => {
      const hour = 3_600_000;
      const expiresAt = new Date(clock.nowMs() + hour).toISOString();
      const timed = await newToken({ expiresAt });
      expect(Date.parse(timed.authentication.expiresAt!)).toBe(Date.parse(expiresAt));
      const later = await newToken();
      const now = await newToken();
      for (const t of [timed, later, now]) await expectAccepted(`Bearer ${t.clientToken}`);

      // Expire `now` at once (no expiresAt = now) and `later` at the same time as `timed`.
      expect(expectStatus(await as(now.clientToken).put('/auth/v1/self/expire'), 200)).toEqual({});
      await expectRefused(`Bearer ${now.clientToken}`, 'self-expired token');
      const res = await as(later.clientToken).request('PUT', `/auth/v1/self/expire?expiresAt=${encodeURIComponent(expiresAt)}`);
      expect(expectStatus(res, 200)).toEqual({});
      await expectAccepted(`Bearer ${later.clientToken}`);
      await expectAccepted(`Bearer ${timed.clientToken}`);
      const stored = expectStatus(await admin.get(`/auth/v1/tokens/${now.authentication.id}`), 200);
      expect(Date.parse(stored.expiresAt)).toBeLessThanOrEqual(clock.nowMs());

      // A token deleted behind this instance's back (as another instance sharing the database
      // would) is refused once the 1 s lookup cache has moved on.
      const elsewhere = await newToken();
      await expectAccepted(`Bearer ${elsewhere.clientToken}`);
      await server.service.store.deleteAuthentication(elsewhere.authentication.id);
      clock.advance(1001);
      await expectRefused(`Bearer ${elsewhere.clientToken}`, 'token deleted elsewhere, after 1 s');
      await expectAccepted(`Bearer ${timed.clientToken}`);

      clock.advance(hour);
      await expectRefused(`Bearer ${timed.clientToken}`, 'expired token');
      await expectRefused(`Bearer ${later.clientToken}`, 'token expired later by itself');
      await expectRefused(`Bearer ${elsewhere.clientToken}`, 'token deleted elsewhere');
      await expectAccepted(`Bearer ${BOOTSTRAP}`);
    });

    it('PUT /auth/v1/self/expire refuses an expiresAt that is not RFC 3339 and keeps the token', async () => {
      const { clientToken } = await newToken();
      const res = await as(clientToken).request('PUT', '/auth/v1/self/expire?expiresAt=soon');
      expect(res.status, res.text).toBe(400);
      expect(res.body.code).toBe(3);
      expect(res.body.message).toContain('expiresAt');
      await expectAccepted(`Bearer ${clientToken}`);
    });
  });

  describe('401 before 400', () => {
    const bodies: [string, string][] = [
      ['/api/v1/namespaces/default/flags', '{"key":'],
      ['/api/v1/flags', '[1,2]'],
      ['/api/v1/evaluate', '{"flagKey": 5}'],
      ['/evaluate/v1/variant', '{"flagKey": '],
      ['/evaluate/v1/boolean', 'not json at all'],
      ['/evaluate/v1/batch', '{"requests": 7}'],
      ['/auth/v1/method/token', '{"name": '],
    ];

    it('an unauthenticated malformed body gets 401', async () => {
      for (const [path, body] of bodies) expectUnauthenticated(await server.api.post(path, body), path);
    });

    it('the same bodies with a token get 400', async () => {
      for (const [path, body] of bodies) {
        const res = await admin.post(path, body);
        expect(res.status, `${path}: ${res.text}`).toBe(400);
        expect(res.body.code).toBe(3);
      }
    });
  });

  describe('GET /auth/v1/self', () => {
    it("returns the bootstrap token's record", async () => {
      const self = expectStatus(await admin.get('/auth/v1/self'), 200);
      expect(Object.keys(self)).toEqual(['id', 'method', 'createdAt', 'updatedAt', 'metadata']);
      expect(self.method).toBe('METHOD_TOKEN');
      // Pennon's: the caller's grants, computed (the bootstrap token has no role: an admin).
      const grants = JSON.stringify({ global: 'admin', namespaces: {} });
      expect(self.metadata).toEqual({
        'io.flipt.auth.token.name': 'initial_bootstrap_token',
        'io.flipt.auth.token.description': 'Initial token created when bootstrapping authentication',
        'io.pennon.auth.grants': grants,
      });
      const stored = expectStatus(await admin.get(`/auth/v1/tokens/${self.id}`), 200);
      expect({ ...stored, metadata: { ...stored.metadata, 'io.pennon.auth.grants': grants } }).toEqual(self);
    });

    it("returns another caller's own record", async () => {
      const created = await newToken({ name: 'me-myself', description: 'who am I', expiresAt: '2099-01-01T00:00:00Z' });
      const self = expectStatus(await as(created.clientToken).get('/auth/v1/self'), 200);
      expect(self).toEqual({ ...created.authentication, metadata: { ...created.authentication.metadata, 'io.pennon.auth.grants': JSON.stringify({ global: 'admin', namespaces: {} }) } });
      expect(self.metadata['io.flipt.auth.token.name']).toBe('me-myself');
    });
  });
});

describe('bootstrap and a second instance on the same database', () => {
  let first: TestServer;
  let second: TestServer;
  // Both instances read it: the lookup cache's second passes when the test says so.
  const clock = new ManualClock();
  const bearer = (server: TestServer, token: string) => server.api.withHeaders({ authorization: `Bearer ${token}` });
  beforeAll(async () => {
    const env = {
      PENNON_AUTHENTICATION_REQUIRED: 'true',
      PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_EXPIRATION: '24h',
      PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_METADATA_OWNER: 'Platform',
    };
    first = await startServer({ ...env, PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'first-bootstrap' }, { clock });
    second = await startServer(
      {
        ...env,
        PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'second-bootstrap',
        PENNON_DB_URL: first.dbUrl, // the same database, whichever back end
      },
      { clock },
    );
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('creates the bootstrap token with its expiration and metadata', async () => {
    const before = Date.now();
    const self = expectStatus(await bearer(first, 'first-bootstrap').get('/auth/v1/self'), 200);
    expect(Object.keys(self)).toEqual(['id', 'method', 'expiresAt', 'createdAt', 'updatedAt', 'metadata']);
    const day = 24 * 3600 * 1000;
    expect(Date.parse(self.expiresAt) - Date.parse(self.createdAt)).toBeGreaterThanOrEqual(day - 1000);
    expect(Date.parse(self.expiresAt) - Date.parse(self.createdAt)).toBeLessThanOrEqual(day + 1000);
    expect(Date.parse(self.expiresAt)).toBeGreaterThan(before + day - 120_000);
    expect(self.metadata).toMatchObject({ owner: 'Platform', 'io.flipt.auth.token.name': 'initial_bootstrap_token' });
  });

  it('bootstraps only when no token exists: the second instance adds none', async () => {
    const tokens = expectStatus(await bearer(second, 'first-bootstrap').get('/auth/v1/tokens'), 200).authentications;
    expect(tokens).toHaveLength(1);
    await expect(bearer(second, 'second-bootstrap').get('/auth/v1/tokens')).resolves.toMatchObject({ status: 401 });
    await expect(bearer(first, 'second-bootstrap').get('/auth/v1/tokens')).resolves.toMatchObject({ status: 401 });
  });

  it('a token deleted on one instance is refused by the other within the 1 s cache', async () => {
    const { clientToken, authentication } = expectStatus(
      await bearer(first, 'first-bootstrap').post('/auth/v1/method/token', { name: 'shared' }),
      200,
    );
    expectStatus(await bearer(second, clientToken).get('/api/v1/namespaces/default/flags'), 200);
    expectStatus(await bearer(second, clientToken).post('/evaluate/v1/boolean', { flagKey: 'none' }), 404);
    expectStatus(await bearer(first, 'first-bootstrap').delete(`/auth/v1/tokens/${authentication.id}`), 200);
    expectUnauthenticated(await bearer(first, clientToken).get('/api/v1/namespaces/default/flags'), 'on the deleting instance');
    clock.advance(1001);
    expectUnauthenticated(await bearer(second, clientToken).get('/api/v1/namespaces/default/flags'), 'on the other instance');
    expectUnauthenticated(await bearer(second, clientToken).post('/evaluate/v1/boolean', { flagKey: 'none' }), 'fast lane, other instance');
  });
});
