import { beforeAll, describe, expect, it } from 'vitest';
import type { RouteSpec } from '../../../internal/wire';
import { fillTemplate, routeTemplates } from '../../support/route-templates';
import { expectStatus, useServer } from '../../support/server';

/**
 * Paging parameters on every list route of the app (both families, rollouts, tokens): a value
 * the route cannot use — not a 32-bit integer, negative, or a page token whose offset no
 * database can bind — is a 400 naming the parameter, never a 500 from the database. The list
 * routes are found in the app's route table: the GET routes whose answer carries a
 * `nextPageToken`. Runs on every configured back end (the server suites' projects).
 */

const b64 = (s: string) => Buffer.from(s).toString('base64');
const q = encodeURIComponent;

const BAD_INTEGERS = ['abc', '1.5', '-0.5', '1e3', '0x10', '99999999999', '2147483648', '-2147483649', 'NaN', 'Infinity', '%20', '%00', '9'.repeat(400), '1,2'];
const BAD_TOKENS = [
  b64('{"offset":1e300}'),
  b64('{"offset":99999999999999999999}'),
  b64(`{"offset":${Number.MAX_SAFE_INTEGER + 2}}`),
  b64('{"offset":-1}'),
  b64('{"offset":1.5}'),
  b64('{"offset":"1"}'),
  '99999999999999999999999',
  '-5',
  '1.5',
  '!!!',
];

describe('paging parameters on every list route', () => {
  const server = useServer();
  /** Each list route's path (seeded values in its parameters), its answer without paging, and its wire table entry. */
  let lists: { path: string; plain: unknown; spec: RouteSpec }[];

  beforeAll(async () => {
    const api = server.api;
    expectStatus(await api.post('/api/v1/flags', { key: 'paged', name: 'Paged', type: 'BOOLEAN_FLAG_TYPE' }), 200);
    expectStatus(await api.post('/api/v1/namespaces/default/flags/paged/rollouts', { rank: 1, threshold: { percentage: 50, value: true } }), 200);
    expectStatus(await api.post('/api/v1/segments', { key: 'paged', name: 'Paged' }), 200);
    lists = [];
    for (const route of routeTemplates(server).filter((r) => r.method === 'GET')) {
      const path = fillTemplate(route.url, (param) => (param === 'namespaceKey' ? 'default' : 'paged'));
      const res = await api.get(path);
      if (res.status === 200 && typeof res.body === 'object' && res.body !== null && 'nextPageToken' in res.body) lists.push({ path, plain: res.body, spec: route.spec });
    }
  });

  it('finds the list routes in the app', () => {
    const paths = lists.map((l) => l.path);
    for (const known of ['/api/v1/namespaces', '/api/v1/flags', '/api/v1/namespaces/default/flags/paged/rollouts', '/auth/v1/tokens']) {
      expect(paths).toContain(known);
    }
    expect(paths.length).toBeGreaterThanOrEqual(9);
    // The wire table marks exactly these as paged, with the array their items are in.
    const paged = routeTemplates(server).filter((r) => r.method === 'GET' && r.spec.paging !== null);
    expect(lists.map((l) => l.spec)).toEqual(paged.map((r) => r.spec));
    for (const { spec, plain } of lists) expect(Array.isArray((plain as Record<string, unknown>)[spec.paging!.items]), `${spec.path}: ${spec.paging!.items}`).toBe(true);
  });

  it('a limit that is not a non-negative 32-bit integer is a 400 naming limit', async () => {
    const wrong: string[] = [];
    for (const { path } of lists) {
      for (const value of [...BAD_INTEGERS, '-1']) {
        const res = await server.api.get(`${path}?limit=${value}`);
        if (res.status !== 400 || !/\blimit\b/.test(res.body?.message ?? '')) wrong.push(`${path}?limit=${value} → ${res.status} ${res.text}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('an offset that is not a non-negative 32-bit integer is a 400 naming offset (or ignored where Flipt has no offset)', async () => {
    const wrong: string[] = [];
    for (const { path, spec } of lists) {
      const firstOnly = expectStatus(await server.api.get(`${path}?limit=1`), 200);
      for (const value of [...BAD_INTEGERS, '-1']) {
        const res = await server.api.get(`${path}?limit=1&offset=${value}`);
        const ignored = res.status === 200 && spec.paging?.offset === false;
        if (!ignored && (res.status !== 400 || !/\boffset\b/.test(res.body?.message ?? ''))) wrong.push(`${path}?offset=${value} → ${res.status} ${res.text}`);
        if (ignored) expect(res.body).toEqual(firstOnly);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a page token that is malformed or holds an offset no database can bind is a 400 naming pageToken', async () => {
    const wrong: string[] = [];
    for (const { path } of lists) {
      for (const token of BAD_TOKENS) {
        const res = await server.api.get(`${path}?limit=1&pageToken=${q(token)}`);
        if (res.status !== 400 || !res.body?.message?.includes('pageToken')) wrong.push(`${path}?pageToken=${token} → ${res.status} ${res.text}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the largest values are answered: limit and offset 2^31-1, a page token at the largest safe offset', async () => {
    for (const { path, spec } of lists) {
      // A keyset list's furthest page starts before the smallest id there can be.
      const keyset = b64('{"before":"00000000-0000-0000-0000-000000000000"}');
      const token = path === '/auth/v1/tokens' ? String(Number.MAX_SAFE_INTEGER) : spec.paging?.keyset ? keyset : b64(`{"offset":${Number.MAX_SAFE_INTEGER}}`);
      const queries = ['limit=2147483647', `limit=2147483647&pageToken=${q(token)}`, ...(spec.paging?.keyset ? [] : ['limit=1&offset=2147483647'])];
      for (const query of queries) {
        const res = await server.api.get(`${path}?${query}`);
        expect(res.status, `${path}?${query}: ${res.text}`).toBe(200);
        expect(res.body.nextPageToken, `${path}?${query}`).toBe('');
      }
    }
  });
});
