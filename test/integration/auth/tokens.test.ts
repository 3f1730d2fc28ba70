import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../internal/storage';
import { expectStatus, type ApiResponse, useServer } from '../../support/server';

/**
 * API client tokens (Flipt's `internal/server/authn/method/token/server.go` and
 * `internal/server/authn/server.go`) with authentication NOT required but the token method enabled: creation, listing and paging,
 * reading, deleting, the method list, and how the token is stored (only its hash).
 */

const TOKEN_ENABLED = { PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true' };
const NAME = 'io.flipt.auth.token.name';
const DESCRIPTION = 'io.flipt.auth.token.description';
const NAMESPACE = 'io.flipt.auth.token.namespace';
/** Pennon's: the token's role (issue 21); without authentication there is no creator to stay under, so an admin's. */
const ROLE = 'io.pennon.auth.role';
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** 32 random bytes, URL-safe base64 with `=` padding. */
const CLIENT_TOKEN = /^[A-Za-z0-9_-]{43}=$/;

function expectError(res: ApiResponse, status: number, code: number, message: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toEqual({ code, message, details: [] });
  expect(Object.keys(res.body)).toEqual(['code', 'message', 'details']);
}

function expectInvalid(res: ApiResponse, mentions: string): void {
  expect(res.status, res.text).toBe(400);
  expect(Object.keys(res.body)).toEqual(['code', 'message', 'details']);
  expect(res.body.code).toBe(3);
  expect(res.body.details).toEqual([]);
  expect(res.body.message).toContain(mentions);
}

/** base64url *with* padding of sha256(token), as Flipt stores it. */
const hashOf = (token: string) => createHash('sha256').update(token).digest('base64').replace(/\+/g, '-').replace(/\//g, '_');

describe('API client tokens (authentication not required, token method enabled)', () => {
  const server = useServer(TOKEN_ENABLED);
  beforeAll(async () => {
    expectStatus(await server.api.post('/api/v1/namespaces', { key: 'ns1', name: 'ns1' }), 200);
  });

  const createToken = (body: unknown) => server.api.post('/auth/v1/method/token', body);

  describe('POST /auth/v1/method/token', () => {
    it('answers {clientToken, authentication} with every field in Flipt order', async () => {
      const before = Date.now();
      const res = await createToken({
        name: 'ci',
        description: 'for the CI pipeline',
        expiresAt: '2099-01-02T03:04:05Z',
        namespaceKey: 'ns1',
        metadata: { team: 'core' },
      });
      const body = expectStatus(res, 200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(body)).toEqual(['clientToken', 'authentication']);
      expect(body.clientToken).toHaveLength(44);
      expect(body.clientToken).toMatch(CLIENT_TOKEN);
      const a = body.authentication;
      expect(Object.keys(a)).toEqual(['id', 'method', 'expiresAt', 'createdAt', 'updatedAt', 'metadata']);
      expect(a.id).toMatch(UUID);
      expect(a.method).toBe('METHOD_TOKEN');
      expect(a.expiresAt).toMatch(RFC3339_UTC);
      expect(Date.parse(a.expiresAt)).toBe(Date.parse('2099-01-02T03:04:05Z'));
      for (const t of [a.createdAt, a.updatedAt]) {
        expect(t).toMatch(RFC3339_UTC);
        expect(Date.parse(t)).toBeGreaterThanOrEqual(before - 1000);
        expect(Date.parse(t)).toBeLessThanOrEqual(Date.now() + 1000);
      }
      expect(a.metadata).toEqual({ team: 'core', [NAME]: 'ci', [DESCRIPTION]: 'for the CI pipeline', [NAMESPACE]: 'ns1', [ROLE]: 'admin' });
    });

    it('omits expiresAt, the description and the namespace when not given', async () => {
      const body = expectStatus(await createToken({ name: 'bare' }), 200);
      expect(Object.keys(body.authentication)).toEqual(['id', 'method', 'createdAt', 'updatedAt', 'metadata']);
      expect(body.authentication.metadata).toEqual({ [NAME]: 'bare', [ROLE]: 'admin' });
    });

    it('treats an empty description and namespaceKey as absent', async () => {
      const body = expectStatus(await createToken({ name: 'empty-extras', description: '', namespaceKey: '', expiresAt: '' }), 200);
      expect(body.authentication.metadata).toEqual({ [NAME]: 'empty-extras', [ROLE]: 'admin' });
      expect(body.authentication).not.toHaveProperty('expiresAt');
    });

    it('lower-cases the keys of extra metadata, not the values', async () => {
      const body = expectStatus(await createToken({ name: 'meta', metadata: { 'Team.Owner': 'Platform', XY: 'AbC' } }), 200);
      expect(body.authentication.metadata).toEqual({ 'team.owner': 'Platform', xy: 'AbC', [NAME]: 'meta', [ROLE]: 'admin' });
    });

    it('generates a different token (and id) each time', async () => {
      const a = expectStatus(await createToken({ name: 'twin' }), 200);
      const b = expectStatus(await createToken({ name: 'twin' }), 200);
      expect(a.clientToken).not.toBe(b.clientToken);
      expect(a.authentication.id).not.toBe(b.authentication.id);
    });

    it('requires a name', async () => {
      expectError(await createToken({ description: 'no name' }), 400, 3, 'invalid field name: must not be empty');
      expectError(await createToken({ name: '' }), 400, 3, 'invalid field name: must not be empty');
    });

    it('refuses an expiresAt in the past', async () => {
      expectInvalid(await createToken({ name: 'past', expiresAt: '2001-01-01T00:00:00Z' }), 'expiresAt');
      expectInvalid(await createToken({ name: 'past', expiresAt: new Date(Date.now() - 5000).toISOString() }), 'expiresAt');
    });

    it('refuses an expiresAt that is not RFC 3339', async () => {
      for (const expiresAt of ['tomorrow', '2099-01-01', '2099-13-01T00:00:00Z', '01/02/2099']) {
        expectInvalid(await createToken({ name: 'bad-date', expiresAt }), 'expiresAt');
      }
    });

    it('creates nothing when refused', async () => {
      const before = expectStatus(await server.api.get('/auth/v1/tokens?limit=100'), 200).authentications.length;
      await createToken({ name: '' });
      await createToken({ name: 'x', expiresAt: 'nope' });
      expect(expectStatus(await server.api.get('/auth/v1/tokens?limit=100'), 200).authentications).toHaveLength(before);
    });
  });

  describe('GET and DELETE /auth/v1/tokens/{id}', () => {
    it('reads back what creation answered', async () => {
      const created = expectStatus(await createToken({ name: 'read-me', description: 'd', expiresAt: '2099-06-01T00:00:00Z' }), 200);
      const got = expectStatus(await server.api.get(`/auth/v1/tokens/${created.authentication.id}`), 200);
      expect(got).toEqual(created.authentication);
      expect(Object.keys(got)).toEqual(['id', 'method', 'expiresAt', 'createdAt', 'updatedAt', 'metadata']);
    });

    it('answers 404 for an unknown id', async () => {
      expectError(await server.api.get(`/auth/v1/tokens/${randomUUID()}`), 404, 5, 'getting authentication by token: resource not found');
    });

    it('deletes with 200 {}, idempotently', async () => {
      const created = expectStatus(await createToken({ name: 'doomed' }), 200);
      const id = created.authentication.id;
      const first = await server.api.delete(`/auth/v1/tokens/${id}`);
      expect(expectStatus(first, 200)).toEqual({});
      expectError(await server.api.get(`/auth/v1/tokens/${id}`), 404, 5, 'getting authentication by token: resource not found');
      const ids = expectStatus(await server.api.get('/auth/v1/tokens?limit=100'), 200).authentications.map((a: { id: string }) => a.id);
      expect(ids).not.toContain(id);
      expect(expectStatus(await server.api.delete(`/auth/v1/tokens/${id}`), 200)).toEqual({});
      expect(expectStatus(await server.api.delete(`/auth/v1/tokens/${randomUUID()}`), 200)).toEqual({});
    });
  });

  describe('GET /auth/v1/tokens', () => {
    it('answers {authentications, nextPageToken} without totalCount, bootstrap token included', async () => {
      const list = expectStatus(await server.api.get('/auth/v1/tokens'), 200);
      expect(Object.keys(list)).toEqual(['authentications', 'nextPageToken']);
      expect(list.nextPageToken).toBe('');
      // As Flipt's internal/storage/authn/bootstrap.go: with the token method enabled and no
      // token stored, the first start creates one.
      const boot = list.authentications.find((a: { metadata: Record<string, string> }) => a.metadata[NAME] === 'initial_bootstrap_token');
      expect(boot).toBeDefined();
      expect(boot.method).toBe('METHOD_TOKEN');
      expect(boot.metadata[DESCRIPTION]).toBe('Initial token created when bootstrapping authentication');
      expect(list.authentications[0]).toEqual(boot); // the oldest
    });

    it('filters by method (name or number); METHOD_NONE means all', async () => {
      const all = expectStatus(await server.api.get('/auth/v1/tokens?limit=100'), 200).authentications;
      expect(all.length).toBeGreaterThan(3);
      expect(expectStatus(await server.api.get('/auth/v1/tokens?limit=100&method=METHOD_TOKEN'), 200).authentications).toEqual(all);
      expect(expectStatus(await server.api.get('/auth/v1/tokens?limit=100&method=1'), 200).authentications).toEqual(all);
      expect(expectStatus(await server.api.get('/auth/v1/tokens?limit=100&method=METHOD_NONE'), 200).authentications).toEqual(all);
      expect(expectStatus(await server.api.get('/auth/v1/tokens?method=METHOD_OIDC'), 200)).toEqual({ authentications: [], nextPageToken: '' });
    });

    it('refuses a bad pageToken, limit or method with 400', async () => {
      expectInvalid(await server.api.get('/auth/v1/tokens?pageToken=abc'), 'pageToken');
      expectInvalid(await server.api.get('/auth/v1/tokens?limit=7&pageToken=eyJvZmZzZXQiOjF9'), 'pageToken');
      expectInvalid(await server.api.get('/auth/v1/tokens?limit=abc'), 'limit');
      expectInvalid(await server.api.get('/auth/v1/tokens?method=METHOD_BOGUS'), 'method');
    });
  });

  describe('GET /auth/v1/method', () => {
    it('lists the 5 methods in Flipt order, token enabled', async () => {
      const body = expectStatus(await server.api.get('/auth/v1/method'), 200);
      expect(Object.keys(body)).toEqual(['methods']);
      expect(body.methods.map(({ method, enabled, sessionCompatible }: Record<string, unknown>) => ({ method, enabled, sessionCompatible }))).toEqual([
        { method: 'METHOD_TOKEN', enabled: true, sessionCompatible: false },
        { method: 'METHOD_GITHUB', enabled: false, sessionCompatible: true },
        { method: 'METHOD_OIDC', enabled: false, sessionCompatible: true },
        { method: 'METHOD_KUBERNETES', enabled: false, sessionCompatible: false },
        { method: 'METHOD_JWT', enabled: false, sessionCompatible: false },
      ]);
    });
  });

  describe('without required authentication', () => {
    it('GET /auth/v1/self answers 401, even with a valid token', async () => {
      const { clientToken } = expectStatus(await createToken({ name: 'self' }), 200);
      for (const api of [server.api, server.api.withHeaders({ authorization: `Bearer ${clientToken}` })]) {
        const res = await api.get('/auth/v1/self');
        expectError(res, 401, 16, 'request was not authenticated');
        expect(res.headers.get('www-authenticate')).toBeTruthy();
      }
    });

    it('PUT /auth/v1/self/expire answers 401 and expires nothing', async () => {
      const created = expectStatus(await createToken({ name: 'not-expired' }), 200);
      const api = server.api.withHeaders({ authorization: `Bearer ${created.clientToken}` });
      expectError(await api.put('/auth/v1/self/expire'), 401, 16, 'request was not authenticated');
      expectError(await server.api.put('/auth/v1/self/expire'), 401, 16, 'request was not authenticated');
      expect(expectStatus(await server.api.get(`/auth/v1/tokens/${created.authentication.id}`), 200)).not.toHaveProperty('expiresAt');
    });

    it('ignores any Authorization header elsewhere', async () => {
      const bogus = server.api.withHeaders({ authorization: 'Bearer not-a-token' });
      expectStatus(await bogus.get('/api/v1/namespaces/default/flags'), 200);
      expectStatus(await bogus.get('/auth/v1/tokens'), 200);
      expectStatus(await bogus.get('/internal/v1/evaluation/snapshot/namespace/default'), 200);
      // The fast lane: not 401, just the missing flag.
      expect((await bogus.post('/evaluate/v1/boolean', { flagKey: 'missing', entityId: 'e' })).status).toBe(404);
      expect((await server.api.withHeaders({ authorization: 'Basic Zm9vOmJhcg==' }).post('/evaluate/v1/variant', { flagKey: 'missing' })).status).toBe(404);
    });
  });

  describe('storage', () => {
    it('stores base64url(sha256(token)) with padding, never the token', async () => {
      const created = expectStatus(await createToken({ name: 'stored', description: 'check the row' }), 200);
      const token: string = created.clientToken;
      // Read through a connection of our own, on whichever back end the server runs.
      const conn = openDatabase(server.dbUrl);
      try {
        const row = await conn.db.selectFrom('authentications').select('hashed_client_token').where('id', '=', created.authentication.id).executeTakeFirst();
        expect(row).toBeDefined();
        expect(row!.hashed_client_token).toBe(hashOf(token));
        expect(row!.hashed_client_token).toHaveLength(44);
        expect(row!.hashed_client_token).not.toBe(token);
        const rows = await conn.db.selectFrom('authentications').selectAll().execute();
        expect(rows.length).toBeGreaterThan(1);
        expect(JSON.stringify(rows)).not.toContain(token);
      } finally {
        await conn.close();
      }
      // On SQLite, nor anywhere in the database files (main file and write-ahead log).
      if (server.backend === 'sqlite') {
        const path = join(server.dir, 'pennon.db');
        expect(existsSync(path)).toBe(true);
        for (const file of [path, `${path}-wal`]) {
          if (existsSync(file)) expect(readFileSync(file).includes(Buffer.from(token))).toBe(false);
        }
      }
    });
  });
});

describe('token paging', () => {
  const server = useServer(TOKEN_ENABLED);
  beforeAll(async () => {
    // 1 bootstrap token + 29 = 30.
    for (let i = 0; i < 29; i++) expectStatus(await server.api.post('/auth/v1/method/token', { name: `page-${i}` }), 200);
  });

  const list = async (query: string) => expectStatus(await server.api.get(`/auth/v1/tokens${query}`), 200);

  it('walks 30 tokens 7 at a time with decimal offsets as page tokens', async () => {
    const everything = (await list('?limit=100')).authentications;
    expect(everything).toHaveLength(30);
    const seen: unknown[] = [];
    const tokens: string[] = [];
    let pageToken = '';
    for (let pages = 0; pages < 10; pages++) {
      const page = await list(`?limit=7${pageToken === '' ? '' : `&pageToken=${pageToken}`}`);
      seen.push(...page.authentications);
      tokens.push(page.nextPageToken);
      pageToken = page.nextPageToken;
      if (pageToken === '') break;
      expect(page.authentications).toHaveLength(7);
    }
    expect(tokens).toEqual(['7', '14', '21', '28', '']);
    expect(seen).toEqual(everything);
    expect(new Set(seen.map((a) => (a as { id: string }).id)).size).toBe(30);
  });

  it('orders by createdAt ascending', async () => {
    const times = (await list('?limit=100')).authentications.map((a: { createdAt: string }) => Date.parse(a.createdAt));
    expect(times).toEqual([...times].sort((x: number, y: number) => x - y));
  });

  it('accepts page_token and the Go SDK zero values', async () => {
    expect((await list('?limit=7&page_token=28')).authentications).toHaveLength(2);
    const zero = await list('?limit=0&pageToken=');
    expect(zero.authentications).toHaveLength(25);
  });

  it('defaults to 25 and caps at 100', async () => {
    const first = await list('');
    expect(first.authentications).toHaveLength(25);
    expect(first.nextPageToken).toBe('25');
    const rest = await list('?pageToken=25');
    expect(rest.authentications).toHaveLength(5);
    expect(rest.nextPageToken).toBe('');

    for (let i = 0; i < 80; i++) expectStatus(await server.api.post('/auth/v1/method/token', { name: `more-${i}` }), 200);
    const capped = await list('?limit=1000');
    expect(capped.authentications).toHaveLength(100);
    expect(capped.nextPageToken).toBe('100');
    const tail = await list('?limit=1000&pageToken=100');
    expect(tail.authentications).toHaveLength(10);
    expect(tail.nextPageToken).toBe('');
    expect(await list('?limit=10&pageToken=500')).toEqual({ authentications: [], nextPageToken: '' });
  });
});

describe('token method disabled', () => {
  const server = useServer();

  it('POST /auth/v1/method/token is not mounted: 404', async () => {
    expectError(await server.api.post('/auth/v1/method/token', { name: 'x' }), 404, 5, 'Not Found');
  });

  it('GET /auth/v1/method reports the token method disabled', async () => {
    const body = expectStatus(await server.api.get('/auth/v1/method'), 200);
    expect(body.methods.map((m: { method: string }) => m.method)).toEqual([
      'METHOD_TOKEN',
      'METHOD_GITHUB',
      'METHOD_OIDC',
      'METHOD_KUBERNETES',
      'METHOD_JWT',
    ]);
    expect(body.methods[0]).toMatchObject({ method: 'METHOD_TOKEN', enabled: false, sessionCompatible: false });
    expect(body.methods.every((m: { enabled: boolean }) => m.enabled === false)).toBe(true);
  });

  it('bootstraps no token', async () => {
    expect(expectStatus(await server.api.get('/auth/v1/tokens'), 200)).toEqual({ authentications: [], nextPageToken: '' });
  });
});
