import { describe, expect, it } from 'vitest';
import { expectStatus, useServer, type ApiResponse } from '../../support/server';

/**
 * Namespaces (Family B only), as Flipt's `internal/server/namespace.go`, `rpc/flipt/validation.go` and
 * `internal/storage/sql/common/namespace.go` handle them.
 */

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?Z$/;
const NAMESPACE_FIELDS = ['key', 'name', 'description', 'protected', 'createdAt', 'updatedAt'];

let seq = 0;
/** A key no other test uses. */
const uniqueKey = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

/** Asserts a gRPC-gateway error: status, `{code, message, details: []}` and nothing else. */
function expectError(res: ApiResponse, status: number, code: number, message: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toEqual({ code, message, details: [] });
  expect(Object.keys(res.body)).toEqual(['code', 'message', 'details']);
}

function expectTimestamp(value: unknown, notBefore: number): void {
  expect(value).toMatch(RFC3339_UTC);
  const ms = Date.parse(value as string);
  // Generous bounds: the server's clock is this machine's clock.
  expect(ms).toBeGreaterThanOrEqual(notBefore - 1000);
  expect(ms).toBeLessThanOrEqual(Date.now() + 1000);
}

describe('namespaces API', () => {
  const server = useServer();

  const create = (key: string, name = `Name ${key}`, description?: string) =>
    server.api.post('/api/v1/namespaces', { key, name, ...(description !== undefined && { description }) });

  describe('seeded default namespace', () => {
    it('GET /api/v1/namespaces/default returns the migration row, protected', async () => {
      const ns = expectStatus(await server.api.get('/api/v1/namespaces/default'), 200);
      expect(Object.keys(ns)).toEqual(NAMESPACE_FIELDS);
      expect(ns).toMatchObject({ key: 'default', name: 'Default', description: 'Default namespace', protected: true });
      expect(ns.createdAt).toMatch(RFC3339_UTC);
      expect(ns.updatedAt).toMatch(RFC3339_UTC);
    });

    it('is the first namespace in the list', async () => {
      const list = expectStatus(await server.api.get('/api/v1/namespaces'), 200);
      expect(list.namespaces[0]).toMatchObject({ key: 'default', name: 'Default', protected: true });
    });
  });

  describe('POST /api/v1/namespaces', () => {
    it('creates a namespace with every field, zero values included', async () => {
      const key = uniqueKey('create');
      const before = Date.now();
      const res = await create(key, 'My NS');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const ns = res.body;
      expect(Object.keys(ns)).toEqual(NAMESPACE_FIELDS);
      expect(ns).toMatchObject({ key, name: 'My NS', description: '', protected: false });
      expectTimestamp(ns.createdAt, before);
      expectTimestamp(ns.updatedAt, before);
    });

    it('stores the description and can be read back with GET', async () => {
      const key = uniqueKey('desc');
      const created = expectStatus(await create(key, 'Described', 'some text'), 200);
      expect(created.description).toBe('some text');
      const got = expectStatus(await server.api.get(`/api/v1/namespaces/${key}`), 200);
      expect(got).toEqual(created);
    });

    it('accepts a key with commas, dashes and underscores', async () => {
      const key = `a,b-c_D9-${++seq}`;
      const ns = expectStatus(await create(key), 200);
      expect(ns.key).toBe(key);
      expectStatus(await server.api.get(`/api/v1/namespaces/${encodeURIComponent(key)}`), 200);
    });

    it('cannot create a protected namespace', async () => {
      const key = uniqueKey('prot');
      const ns = expectStatus(await server.api.post('/api/v1/namespaces', { key, name: 'P', protected: true }), 200);
      expect(ns.protected).toBe(false);
    });

    it('rejects an empty key', async () => {
      expectError(await create('', 'Name'), 400, 3, 'invalid field key: must not be empty');
    });

    it('rejects a missing key before a missing name', async () => {
      expectError(await server.api.post('/api/v1/namespaces', {}), 400, 3, 'invalid field key: must not be empty');
    });

    it('rejects a key with invalid characters', async () => {
      expectError(await create('a b', 'Name'), 400, 3, 'invalid field key: contains invalid characters');
      expectError(await create('a/b', 'Name'), 400, 3, 'invalid field key: contains invalid characters');
      expectError(await create('a.b', 'Name'), 400, 3, 'invalid field key: contains invalid characters');
    });

    it('rejects an empty name', async () => {
      expectError(await create(uniqueKey('noname'), ''), 400, 3, 'invalid field name: must not be empty');
    });

    it('rejects a duplicate key', async () => {
      const key = uniqueKey('dup');
      expectStatus(await create(key), 200);
      expectError(await create(key, 'Other'), 400, 3, `namespace "${key}" is not unique`);
    });

    it('rejects re-creating default', async () => {
      expectError(await create('default', 'Again'), 400, 3, 'namespace "default" is not unique');
    });
  });

  describe('GET /api/v1/namespaces/{key}', () => {
    it('answers 404 for a missing namespace', async () => {
      expectError(await server.api.get('/api/v1/namespaces/foo'), 404, 5, 'namespace "foo" not found');
    });
  });

  describe('PUT /api/v1/namespaces/{key}', () => {
    it('updates name and description, keeps key, protected and createdAt', async () => {
      const key = uniqueKey('upd');
      const created = expectStatus(await create(key, 'Before', 'old'), 200);
      const res = await server.api.put(`/api/v1/namespaces/${key}`, { name: 'After', description: 'new' });
      const updated = expectStatus(res, 200);
      expect(Object.keys(updated)).toEqual(NAMESPACE_FIELDS);
      expect(updated).toMatchObject({ key, name: 'After', description: 'new', protected: false, createdAt: created.createdAt });
      expect(updated.updatedAt).toMatch(RFC3339_UTC);
      expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
      expect(expectStatus(await server.api.get(`/api/v1/namespaces/${key}`), 200)).toEqual(updated);
    });

    it('clears the description when it is omitted', async () => {
      const key = uniqueKey('upd-desc');
      expectStatus(await create(key, 'N', 'to be cleared'), 200);
      const updated = expectStatus(await server.api.put(`/api/v1/namespaces/${key}`, { name: 'N' }), 200);
      expect(updated.description).toBe('');
    });

    it('uses the key from the path, not the body', async () => {
      const key = uniqueKey('upd-path');
      const other = uniqueKey('upd-other');
      expectStatus(await create(key, 'Path'), 200);
      const updated = expectStatus(await server.api.put(`/api/v1/namespaces/${key}`, { key: other, name: 'Renamed' }), 200);
      expect(updated).toMatchObject({ key, name: 'Renamed' });
      expectError(await server.api.get(`/api/v1/namespaces/${other}`), 404, 5, `namespace "${other}" not found`);
    });

    it('cannot unprotect default', async () => {
      const updated = expectStatus(
        await server.api.put('/api/v1/namespaces/default', { name: 'Default', description: 'Default namespace', protected: false }),
        200,
      );
      expect(updated).toMatchObject({ key: 'default', protected: true });
    });

    it('rejects an empty name', async () => {
      const key = uniqueKey('upd-noname');
      expectStatus(await create(key), 200);
      expectError(await server.api.put(`/api/v1/namespaces/${key}`, { name: '' }), 400, 3, 'invalid field name: must not be empty');
    });

    it('answers 404 for a missing namespace', async () => {
      const key = uniqueKey('upd-missing');
      expectError(await server.api.put(`/api/v1/namespaces/${key}`, { name: 'X' }), 404, 5, `namespace "${key}" not found`);
    });
  });

  describe('DELETE /api/v1/namespaces/{key}', () => {
    it('deletes an empty namespace and answers 200 {}', async () => {
      const key = uniqueKey('del');
      expectStatus(await create(key), 200);
      const res = await server.api.delete(`/api/v1/namespaces/${key}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expectError(await server.api.get(`/api/v1/namespaces/${key}`), 404, 5, `namespace "${key}" not found`);
    });

    it('answers 404 for a missing namespace, with or without force', async () => {
      const key = uniqueKey('del-missing');
      expectError(await server.api.delete(`/api/v1/namespaces/${key}`), 404, 5, `namespace "${key}" not found`);
      expectError(await server.api.delete(`/api/v1/namespaces/${key}?force=true`), 404, 5, `namespace "${key}" not found`);
    });

    it('refuses a force that is not a boolean, naming it, and deletes nothing', async () => {
      const key = uniqueKey('del-force');
      expectStatus(await create(key), 200);
      for (const force of ['maybe', '2', 'yes', 'TRUE', '-1', '%00', 'true%00']) {
        expectError(await server.api.delete(`/api/v1/namespaces/${key}?force=${force}`), 400, 3, 'invalid field force: must be a boolean');
      }
      expectStatus(await server.api.get(`/api/v1/namespaces/${key}`), 200);
    });

    it('refuses to delete the protected default namespace without force', async () => {
      expectError(await server.api.delete('/api/v1/namespaces/default'), 400, 3, 'namespace "default" is protected');
      expectError(await server.api.delete('/api/v1/namespaces/default?force=false'), 400, 3, 'namespace "default" is protected');
      expectStatus(await server.api.get('/api/v1/namespaces/default'), 200);
    });

    it('refuses to delete a namespace that has flags without force', async () => {
      const key = uniqueKey('del-flags');
      expectStatus(await create(key), 200);
      expectStatus(await server.api.post(`/api/v1/namespaces/${key}/flags`, { key: 'f1', name: 'F1' }), 200);
      expectError(
        await server.api.delete(`/api/v1/namespaces/${key}`),
        400,
        3,
        `namespace "${key}" cannot be deleted; flags must be deleted first`,
      );
      expectStatus(await server.api.get(`/api/v1/namespaces/${key}`), 200);
      expectStatus(await server.api.get(`/api/v1/namespaces/${key}/flags/f1`), 200);
    });

    it('deletes a namespace once its flags are deleted', async () => {
      const key = uniqueKey('del-after');
      expectStatus(await create(key), 200);
      expectStatus(await server.api.post(`/api/v1/namespaces/${key}/flags`, { key: 'f1', name: 'F1' }), 200);
      expectStatus(await server.api.delete(`/api/v1/namespaces/${key}/flags/f1`), 200);
      expect(expectStatus(await server.api.delete(`/api/v1/namespaces/${key}`), 200)).toEqual({});
    });

    it('with force=true deletes the flags, segments and the namespace', async () => {
      const key = uniqueKey('del-force');
      expectStatus(await create(key), 200);
      expectStatus(await server.api.post(`/api/v1/namespaces/${key}/flags`, { key: 'f1', name: 'F1' }), 200);
      expectStatus(await server.api.post(`/api/v1/namespaces/${key}/flags`, { key: 'f2', name: 'F2' }), 200);
      expectStatus(await server.api.post(`/api/v1/namespaces/${key}/segments`, { key: 's1', name: 'S1' }), 200);
      const res = await server.api.delete(`/api/v1/namespaces/${key}?force=true`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({});
      expectError(await server.api.get(`/api/v1/namespaces/${key}`), 404, 5, `namespace "${key}" not found`);
      expectError(await server.api.get(`/api/v1/namespaces/${key}/flags/f1`), 404, 5, `flag "${key}/f1" not found`);
      // Re-created under the same key, it is empty: nothing survived the delete.
      expectStatus(await create(key), 200);
      const flags = expectStatus(await server.api.get(`/api/v1/namespaces/${key}/flags`), 200);
      expect(flags).toEqual({ flags: [], nextPageToken: '', totalCount: 0 });
      const segments = expectStatus(await server.api.get(`/api/v1/namespaces/${key}/segments`), 200);
      expect(segments).toEqual({ segments: [], nextPageToken: '', totalCount: 0 });
    });
  });

  describe('GET /api/v1/namespaces (list)', () => {
    it('returns {namespaces, nextPageToken, totalCount} in creation order', async () => {
      // Keys in reverse alphabetical order, so key order and creation order differ.
      const prefix = uniqueKey('order');
      const keys = ['z', 'm', 'a'].map((s) => `${prefix}-${s}`);
      for (const key of keys) expectStatus(await create(key), 200);
      const list = expectStatus(await server.api.get('/api/v1/namespaces'), 200);
      expect(Object.keys(list)).toEqual(['namespaces', 'nextPageToken', 'totalCount']);
      expect(list.nextPageToken).toBe('');
      expect(list.totalCount).toBe(list.namespaces.length);
      const all: string[] = list.namespaces.map((n: { key: string }) => n.key);
      expect(all[0]).toBe('default');
      expect(all.filter((k) => k.startsWith(prefix))).toEqual(keys);
      for (const ns of list.namespaces) expect(Object.keys(ns)).toEqual(NAMESPACE_FIELDS);
    });

    it('pages with limit and pageToken until the token is empty', async () => {
      const prefix = uniqueKey('page');
      for (const s of ['e', 'd', 'c', 'b', 'a']) expectStatus(await create(`${prefix}-${s}`), 200);
      const full = expectStatus(await server.api.get('/api/v1/namespaces?limit=0'), 200);
      const expected: string[] = full.namespaces.map((n: { key: string }) => n.key);
      expect(full.nextPageToken).toBe('');
      expect(full.totalCount).toBe(expected.length);
      expect(expected.length).toBeGreaterThanOrEqual(6);

      const seen: string[] = [];
      let token = '';
      let pages = 0;
      do {
        const query = `limit=2${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
        const page = expectStatus(await server.api.get(`/api/v1/namespaces?${query}`), 200);
        expect(page.totalCount).toBe(expected.length);
        expect(page.namespaces.length).toBeLessThanOrEqual(2);
        seen.push(...page.namespaces.map((n: { key: string }) => n.key));
        token = page.nextPageToken;
        pages++;
        // A token is only emitted when another page follows.
        if (seen.length < expected.length) expect(token).not.toBe('');
        expect(pages).toBeLessThanOrEqual(expected.length);
      } while (token !== '');
      expect(seen).toEqual(expected);
      expect(pages).toBe(Math.ceil(expected.length / 2));
    });

    it('the page token is base64 JSON {"key": <first key of the next page>, "offset": n}', async () => {
      expectStatus(await create(uniqueKey('token')), 200);
      const full = expectStatus(await server.api.get('/api/v1/namespaces'), 200);
      const page = expectStatus(await server.api.get('/api/v1/namespaces?limit=1'), 200);
      expect(page.nextPageToken).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
      const decoded = JSON.parse(Buffer.from(page.nextPageToken, 'base64').toString('utf8'));
      expect(decoded).toEqual({ key: full.namespaces[1].key, offset: 1 });
    });

    it('accepts the deprecated offset, without a limit too', async () => {
      const full = expectStatus(await server.api.get('/api/v1/namespaces'), 200);
      const keys: string[] = full.namespaces.map((n: { key: string }) => n.key);
      const page = expectStatus(await server.api.get('/api/v1/namespaces?limit=2&offset=1'), 200);
      expect(page.namespaces.map((n: { key: string }) => n.key)).toEqual(keys.slice(1, 3));
      // Namespaces, unlike flags, do not require a limit with an offset.
      const rest = expectStatus(await server.api.get('/api/v1/namespaces?offset=1'), 200);
      expect(rest.namespaces.map((n: { key: string }) => n.key)).toEqual(keys.slice(1));
    });

    it('rejects a bad page token', async () => {
      const token = 'bm90IGpzb24='; // base64 of "not json"
      expectError(
        await server.api.get(`/api/v1/namespaces?limit=2&pageToken=${encodeURIComponent(token)}`),
        400,
        3,
        `pageToken is not valid: "${token}"`,
      );
    });

    it('rejects a limit that is not a number', async () => {
      const res = await server.api.get('/api/v1/namespaces?limit=abc');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 3, details: [] });
    });
  });
});

describe('force-deleting the default namespace', () => {
  // A server of its own: this removes `default`.
  const server = useServer();

  it('deletes default and its flags with force=true; a re-created default is unprotected', async () => {
    expectStatus(await server.api.post('/api/v1/flags', { key: 'in-default', name: 'In default' }), 200);
    const res = await server.api.delete('/api/v1/namespaces/default?force=true');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({});
    expectError(await server.api.get('/api/v1/namespaces/default'), 404, 5, 'namespace "default" not found');
    expectError(await server.api.get('/api/v1/flags/in-default'), 404, 5, 'flag "default/in-default" not found');

    const recreated = expectStatus(await server.api.post('/api/v1/namespaces', { key: 'default', name: 'Default' }), 200);
    expect(recreated).toMatchObject({ key: 'default', name: 'Default', description: '', protected: false });
    expect(expectStatus(await server.api.get('/api/v1/flags'), 200)).toEqual({ flags: [], nextPageToken: '', totalCount: 0 });
    // No longer protected: a plain delete works.
    expect(expectStatus(await server.api.delete('/api/v1/namespaces/default'), 200)).toEqual({});
  });
});
