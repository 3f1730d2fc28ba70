import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, useServer, type ApiResponse } from '../../support/server';

/**
 * The JSON wire format and the gateway's behaviour around it (Flipt's `internal/gateway/` and
 * `internal/cmd/http.go`; grpc-gateway's `runtime/errors.go` and `runtime/mux.go`).
 */

let seq = 0;
const uniqueKey = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

function expectError(res: ApiResponse, status: number, code: number, message: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toEqual({ code, message, details: [] });
  expect(Object.keys(res.body)).toEqual(['code', 'message', 'details']);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

/** A 400 InvalidArgument whose message names `field`. */
function expectInvalidNaming(res: ApiResponse, field: string): void {
  expect(res.status, res.text).toBe(400);
  expect(Object.keys(res.body)).toEqual(['code', 'message', 'details']);
  expect(res.body.code).toBe(3);
  expect(res.body.details).toEqual([]);
  expect(res.body.message).toContain(field);
}

/** A request over node:http, to control exactly which headers are sent (fetch adds a Content-Type). */
function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<ApiResponse & { raw: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(path, baseUrl),
      { method, headers: { ...(body !== undefined && { 'content-length': String(Buffer.byteLength(body)) }), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const text = raw.toString('utf8');
          let parsed: unknown;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: h, text, raw });
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe('wire format', () => {
  const server = useServer();
  beforeAll(async () => {
    expectStatus(await server.api.post('/api/v1/namespaces', { key: 'wire', name: 'Wire' }), 200);
  });

  describe('request bodies', () => {
    it('parses a JSON body sent as text/plain;charset=UTF-8', async () => {
      const key = uniqueKey('plain');
      const res = await server.api.request('POST', '/api/v1/flags', JSON.stringify({ key, name: 'Plain', enabled: true }), {
        'content-type': 'text/plain;charset=UTF-8',
      });
      expect(expectStatus(res, 200)).toMatchObject({ key, name: 'Plain', enabled: true, namespaceKey: 'default' });
    });

    it('parses a JSON body sent without any Content-Type', async () => {
      const key = uniqueKey('nocontent');
      const res = await rawRequest(server.url, 'POST', '/api/v1/flags', JSON.stringify({ key, name: 'No type' }));
      expect(expectStatus(res, 200)).toMatchObject({ key, name: 'No type' });
      expectStatus(await server.api.get(`/api/v1/flags/${key}`), 200);
    });

    it('accepts snake_case field names: namespace_key, default_variant_id, match_type', async () => {
      const key = uniqueKey('snake');
      const flag = expectStatus(await server.api.post('/api/v1/flags', { key, name: 'Snake', namespace_key: 'wire' }), 200);
      expect(flag.namespaceKey).toBe('wire');
      const variant = expectStatus(
        await server.api.post(`/api/v1/flags/${key}/variants`, { key: 'v', namespace_key: 'wire' }),
        200,
      );
      expect(variant.namespaceKey).toBe('wire');
      const updated = expectStatus(
        await server.api.put(`/api/v1/namespaces/wire/flags/${key}`, { name: 'Snake', default_variant_id: variant.id }),
        200,
      );
      expect(updated.defaultVariant).toEqual(variant);
      // Responses are camelCase only.
      expect(updated).not.toHaveProperty('default_variant');
      expect(updated).not.toHaveProperty('namespace_key');

      const segment = expectStatus(
        await server.api.post('/api/v1/namespaces/wire/segments', { key: uniqueKey('seg'), name: 'S', match_type: 'ANY_MATCH_TYPE' }),
        200,
      );
      expect(segment.matchType).toBe('ANY_MATCH_TYPE');
      expect(segment).not.toHaveProperty('match_type');
    });

    it('ignores unknown fields', async () => {
      const key = uniqueKey('unknown');
      const res = await server.api.post('/api/v1/flags', { key, name: 'U', bogus: 1, nested: { deep: [null, true] }, alsoUnknown: null });
      const flag = expectStatus(res, 200);
      expect(flag).not.toHaveProperty('bogus');
      expect(flag.key).toBe(key);
    });

    it('treats an empty body as an empty message', async () => {
      expectError(await server.api.request('POST', '/api/v1/flags', ''), 400, 3, 'invalid field key: must not be empty');
      expectError(await rawRequest(server.url, 'POST', '/api/v1/flags'), 400, 3, 'invalid field key: must not be empty');
      expectError(await rawRequest(server.url, 'POST', '/api/v1/namespaces', ''), 400, 3, 'invalid field key: must not be empty');
    });

    it('rejects a value of the wrong type with a message naming the field', async () => {
      expectInvalidNaming(await server.api.post('/api/v1/flags', { key: 5, name: 'N' }), 'key');
      expectInvalidNaming(await server.api.post('/api/v1/flags', { key: uniqueKey('t'), name: 'N', enabled: 'yes' }), 'enabled');
      expectInvalidNaming(await server.api.post('/api/v1/flags', { key: uniqueKey('t'), name: ['N'] }), 'name');
      expectInvalidNaming(await server.api.post('/api/v1/flags', { key: uniqueKey('t'), name: 'N', metadata: 'x' }), 'metadata');
    });

    it('rejects malformed JSON with 400 InvalidArgument', async () => {
      for (const body of ['{"key":', '{key: "x"}', 'not json at all']) {
        const res = await server.api.request('POST', '/api/v1/flags', body);
        expect(res.status, body).toBe(400);
        expect(res.body).toMatchObject({ code: 3, details: [] });
        expect(Object.keys(res.body)).toEqual(['code', 'message', 'details']);
        expect(typeof res.body.message).toBe('string');
      }
    });

    it('answers 413 with the JSON error body for a body over 1 MiB', async () => {
      const body = JSON.stringify({ key: uniqueKey('huge'), name: 'Huge', description: 'x'.repeat(1024 * 1024 + 16) });
      const res = await rawRequest(server.url, 'POST', '/api/v1/flags', body, { 'content-type': 'application/json' });
      expect(res.status, res.text).toBe(413);
      expect(Object.keys(res.body)).toEqual(['code', 'message', 'details']);
      expect(typeof res.body.code).toBe('number');
      expect(typeof res.body.message).toBe('string');
      expect(res.body.details).toEqual([]);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      // A body just under the limit is fine.
      const ok = JSON.stringify({ key: uniqueKey('big'), name: 'Big', description: 'y'.repeat(1000 * 1024) });
      expectStatus(await server.api.request('POST', '/api/v1/flags', ok), 200);
    });
  });

  describe('responses', () => {
    it('every success is 200 with application/json: create, update, get, list, delete', async () => {
      const key = uniqueKey('ok');
      const calls: Array<[string, () => Promise<ApiResponse>]> = [
        ['create namespace', () => server.api.post('/api/v1/namespaces', { key, name: 'N' })],
        ['update namespace', () => server.api.put(`/api/v1/namespaces/${key}`, { name: 'N2' })],
        ['create flag', () => server.api.post(`/api/v1/namespaces/${key}/flags`, { key: 'f', name: 'F' })],
        ['create variant', () => server.api.post(`/api/v1/namespaces/${key}/flags/f/variants`, { key: 'v' })],
        ['update flag', () => server.api.put(`/api/v1/namespaces/${key}/flags/f`, { name: 'F2' })],
        ['get flag', () => server.api.get(`/api/v1/namespaces/${key}/flags/f`)],
        ['list flags', () => server.api.get(`/api/v1/namespaces/${key}/flags`)],
        ['create segment', () => server.api.post(`/api/v1/namespaces/${key}/segments`, { key: 's', name: 'S' })],
        ['delete segment', () => server.api.delete(`/api/v1/namespaces/${key}/segments/s`)],
        ['delete flag', () => server.api.delete(`/api/v1/namespaces/${key}/flags/f`)],
        ['delete namespace', () => server.api.delete(`/api/v1/namespaces/${key}`)],
      ];
      for (const [what, call] of calls) {
        const res = await call();
        expect(res.status, `${what}: ${res.text}`).toBe(200);
        expect(res.headers.get('content-type'), what).toMatch(/^application\/json/);
      }
    });

    it('deletes answer exactly {} with status 200', async () => {
      const key = uniqueKey('del');
      expectStatus(await server.api.post('/api/v1/flags', { key, name: 'D' }), 200);
      const variant = expectStatus(await server.api.post(`/api/v1/flags/${key}/variants`, { key: 'v' }), 200);
      for (const path of [`/api/v1/flags/${key}/variants/${variant.id}`, `/api/v1/flags/${key}`, `/api/v1/flags/${key}`]) {
        const res = await server.api.delete(path);
        expect(res.status).toBe(200);
        expect(res.text.replace(/\s/g, '')).toBe('{}');
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      }
    });

    it('emits zero values: "" for strings, false, [] and a JSON number for totalCount', async () => {
      const key = uniqueKey('zero');
      const res = await server.api.post('/api/v1/flags', { key, name: 'Z' });
      expect(res.text).toContain('"description":');
      expect(res.text).toContain('"enabled":');
      expect(res.text).toContain('"variants":');
      expect(res.body).toMatchObject({ description: '', enabled: false, variants: [] });
      const list = expectStatus(await server.api.get('/api/v1/namespaces/wire/segments'), 200);
      expect(typeof list.totalCount).toBe('number');
      expect(list.nextPageToken).toBe('');
    });
  });

  describe('routing', () => {
    it('an unknown route under /api/v1 is 404 {"code":5,"message":"Not Found","details":[]}', async () => {
      for (const [method, path] of [
        ['GET', '/api/v1/nope'],
        ['POST', '/api/v1/nope/deeper'],
        ['GET', '/api/v1/flags/a/b/c/d'],
        ['DELETE', '/api/v1/unknown'],
      ] as const) {
        const res = await server.api.request(method, path);
        expectError(res, 404, 5, 'Not Found');
      }
    });

    it('a known path with the wrong method is 501 {"code":12,"message":"Method Not Allowed","details":[]}', async () => {
      for (const [method, path] of [
        ['PATCH', '/api/v1/flags'],
        ['PATCH', '/api/v1/namespaces/default'],
        ['DELETE', '/api/v1/flags'],
        ['POST', '/api/v1/flags/some-flag'],
        ['PUT', '/api/v1/namespaces'],
      ] as const) {
        const res = await server.api.request(method, path);
        expectError(res, 501, 12, 'Method Not Allowed');
      }
    });

    it('ignores a trailing slash', async () => {
      const list = expectStatus(await server.api.get('/api/v1/flags/'), 200);
      expect(Object.keys(list)).toEqual(['flags', 'nextPageToken', 'totalCount']);
      expect(expectStatus(await server.api.get('/api/v1/namespaces/default/'), 200).key).toBe('default');
      const key = uniqueKey('slash');
      expect(expectStatus(await server.api.post('/api/v1/namespaces/wire/flags/', { key, name: 'S' }), 200).key).toBe(key);
      expect(expectStatus(await server.api.get(`/api/v1/namespaces/wire/flags/${key}/`), 200).key).toBe(key);
      expect(expectStatus(await server.api.delete(`/api/v1/namespaces/wire/flags/${key}/`), 200)).toEqual({});
    });
  });

  describe('query parameters', () => {
    it('accept snake_case names: namespace_key and page_token', async () => {
      const ns = uniqueKey('query');
      expectStatus(await server.api.post('/api/v1/namespaces', { key: ns, name: 'Q' }), 200);
      for (const key of ['c', 'b', 'a']) expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key, name: key }), 200);

      const first = expectStatus(await server.api.get(`/api/v1/flags?namespace_key=${ns}&limit=1`), 200);
      expect(first.flags.map((f: { key: string }) => f.key)).toEqual(['c']);
      expect(first.totalCount).toBe(3);
      const second = expectStatus(
        await server.api.get(`/api/v1/flags?namespace_key=${ns}&limit=1&page_token=${encodeURIComponent(first.nextPageToken)}`),
        200,
      );
      expect(second.flags.map((f: { key: string }) => f.key)).toEqual(['b']);
      const viaCamel = expectStatus(
        await server.api.get(`/api/v1/namespaces/${ns}/flags?limit=1&pageToken=${encodeURIComponent(first.nextPageToken)}`),
        200,
      );
      expect(viaCamel).toEqual(second);
      expect(expectStatus(await server.api.get(`/api/v1/flags/b?namespace_key=${ns}`), 200).namespaceKey).toBe(ns);
    });

    it('ignores unknown query parameters and accepts the SDK’s empty parameters', async () => {
      const res = await server.api.get('/api/v1/namespaces/wire/flags?limit=0&offset=0&pageToken=&reference=&whatever=1');
      expect(Object.keys(expectStatus(res, 200))).toEqual(['flags', 'nextPageToken', 'totalCount']);
    });

    it('a bad value for a typed query parameter is 400', async () => {
      const res = await server.api.get('/api/v1/namespaces/wire/flags?limit=abc');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 3, details: [] });
    });

    it('force accepts true and 1 on namespace delete', async () => {
      for (const value of ['true', '1']) {
        const ns = uniqueKey('force');
        expectStatus(await server.api.post('/api/v1/namespaces', { key: ns, name: 'F' }), 200);
        expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key: 'f', name: 'F' }), 200);
        expect(expectStatus(await server.api.delete(`/api/v1/namespaces/${ns}?force=${value}`), 200)).toEqual({});
      }
    });
  });
  describe('pretty output and compression', () => {
    it('?pretty and Accept: application/json+pretty indent the JSON and drop zero values', async () => {
      const key = uniqueKey('pretty');
      expectStatus(await server.api.post('/api/v1/namespaces/wire/flags', { key, name: 'Pretty' }), 200);
      const viaQuery = await server.api.get(`/api/v1/namespaces/wire/flags/${key}?pretty`);
      const viaAccept = await server.api.request('GET', `/api/v1/namespaces/wire/flags/${key}`, undefined, {
        accept: 'application/json+pretty',
      });
      for (const res of [viaQuery, viaAccept]) {
        const body = expectStatus(res, 200);
        expect(res.text).toContain('\n');
        expect(body).toMatchObject({ key, name: 'Pretty', namespaceKey: 'wire', type: 'VARIANT_FLAG_TYPE' });
        expect(body).not.toHaveProperty('description');
        expect(body).not.toHaveProperty('enabled');
        expect(body).not.toHaveProperty('variants');
      }
      // Without pretty, the same flag has every zero value.
      expect(expectStatus(await server.api.get(`/api/v1/namespaces/wire/flags/${key}`), 200)).toMatchObject({
        description: '',
        enabled: false,
        variants: [],
      });
    });

    it('gzips a response when the client sends Accept-Encoding: gzip', async () => {
      const ns = uniqueKey('gzip');
      expectStatus(await server.api.post('/api/v1/namespaces', { key: ns, name: 'G' }), 200);
      for (let i = 0; i < 5; i++) {
        expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key: `f${i}`, name: 'F', description: 'd'.repeat(500) }), 200);
      }
      const res = await rawRequest(server.url, 'GET', `/api/v1/namespaces/${ns}/flags`, undefined, { 'accept-encoding': 'gzip' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBe('gzip');
      const list = JSON.parse(gunzipSync(res.raw).toString('utf8'));
      expect(list.totalCount).toBe(5);
      expect(list.flags).toHaveLength(5);
    });
  });
});
