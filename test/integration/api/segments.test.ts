import { describe, expect, it } from 'vitest';
import { expectStatus, useServer } from '../../support/server';
import { TIMESTAMP, createFlag, createSegment, decodeToken, expectError, newNamespace, sortedKeys, unique } from '../../support/resources';

const SEGMENT_FIELDS = ['constraints', 'createdAt', 'description', 'key', 'matchType', 'name', 'namespaceKey', 'updatedAt'].sort();

describe('segments API', () => {
  const server = useServer();
  const api = server.api;

  describe('Family B (/api/v1/namespaces/{ns}/segments)', () => {
    it('creates a segment with every field and returns the Segment shape', async () => {
      const { ns, p } = await newNamespace(api);
      const key = unique('seg');
      const created = expectStatus(
        await api.post(`${p}/segments`, { key, name: 'Beta users', description: 'people in beta', matchType: 'ANY_MATCH_TYPE' }),
        200,
      );
      expect(sortedKeys(created)).toEqual(SEGMENT_FIELDS);
      expect(created).toMatchObject({
        key,
        name: 'Beta users',
        description: 'people in beta',
        constraints: [],
        matchType: 'ANY_MATCH_TYPE',
        namespaceKey: ns,
      });
      expect(created.createdAt).toMatch(TIMESTAMP);
      expect(created.updatedAt).toMatch(TIMESTAMP);
      expect(expectStatus(await api.get(`${p}/segments/${key}`), 200)).toEqual(created);
    });

    it('fills zero values: description "", matchType ALL_MATCH_TYPE, constraints []', async () => {
      const { ns, p } = await newNamespace(api);
      const key = unique('seg');
      const created = expectStatus(await api.post(`${p}/segments`, { key, name: 'n' }), 200);
      expect(created).toMatchObject({ key, name: 'n', description: '', constraints: [], matchType: 'ALL_MATCH_TYPE', namespaceKey: ns });
      expect(expectStatus(await api.get(`${p}/segments/${key}`), 200)).toMatchObject({ description: '', matchType: 'ALL_MATCH_TYPE' });
    });

    it('accepts matchType by name and by number', async () => {
      const { p } = await newNamespace(api);
      const cases: [unknown, string][] = [[1, 'ANY_MATCH_TYPE'], [0, 'ALL_MATCH_TYPE'], ['ANY_MATCH_TYPE', 'ANY_MATCH_TYPE'], ['ALL_MATCH_TYPE', 'ALL_MATCH_TYPE']];
      for (const [matchType, expected] of cases) {
        const key = unique('seg');
        expect(expectStatus(await api.post(`${p}/segments`, { key, name: key, matchType }), 200).matchType).toBe(expected);
        expect(expectStatus(await api.get(`${p}/segments/${key}`), 200).matchType).toBe(expected);
      }
    });

    it('rejects a duplicate key in the same namespace but not in another one', async () => {
      const { ns, p } = await newNamespace(api);
      const other = await newNamespace(api);
      const key = await createSegment(api, p);
      expectError(await api.post(`${p}/segments`, { key, name: 'again' }), 400, `segment "${ns}/${key}" is not unique`);
      expectStatus(await api.post(`${other.p}/segments`, { key, name: 'elsewhere' }), 200);
    });

    it('validates key and name', async () => {
      const { p } = await newNamespace(api);
      expectError(await api.post(`${p}/segments`, { name: 'n' }), 400, 'invalid field key: must not be empty');
      expectError(await api.post(`${p}/segments`, { key: 'a b', name: 'n' }), 400, 'invalid field key: contains invalid characters');
      expectError(await api.post(`${p}/segments`, { key: unique('seg') }), 400, 'invalid field name: must not be empty');
      const key = await createSegment(api, p);
      expectError(await api.put(`${p}/segments/${key}`, { description: 'd' }), 400, 'invalid field name: must not be empty');
      // The comma is part of Flipt's key pattern.
      expectStatus(await api.post(`${p}/segments`, { key: `${unique('a')},b_c-d`, name: 'n' }), 200);
    });

    it('accepts keys and names of 255 characters and rejects 256', async () => {
      const { p } = await newNamespace(api);
      const key255 = `k${unique('').replace(/-/g, '')}`.padEnd(255, 'x');
      expect(expectStatus(await api.post(`${p}/segments`, { key: key255, name: 'n'.repeat(255) }), 200).key).toBe(key255);
      expect(expectStatus(await api.get(`${p}/segments/${key255}`), 200).name).toBe('n'.repeat(255));
      const longKey = await api.post(`${p}/segments`, { key: 'k'.repeat(256), name: 'n' });
      expect([longKey.status, longKey.body?.code]).toEqual([400, 3]);
      const longName = await api.post(`${p}/segments`, { key: unique('seg'), name: 'n'.repeat(256) });
      expect([longName.status, longName.body?.code]).toEqual([400, 3]);
      const longUpdate = await api.put(`${p}/segments/${key255}`, { name: 'n'.repeat(256) });
      expect([longUpdate.status, longUpdate.body?.code]).toEqual([400, 3]);
    });

    it('answers 404 for a missing segment and a missing namespace', async () => {
      const { ns, p } = await newNamespace(api);
      expectError(await api.get(`${p}/segments/foo`), 404, `segment "${ns}/foo" not found`);
      expectError(await api.put(`${p}/segments/foo`, { name: 'n' }), 404, `segment "${ns}/foo" not found`);
      expectError(await api.post('/api/v1/namespaces/no-such-ns/segments', { key: 'k', name: 'n' }), 404, 'namespace "no-such-ns" not found');
    });

    it('updates as a full replace: name, description and matchType are always written', async () => {
      const { ns, p } = await newNamespace(api);
      const key = unique('seg');
      const created = expectStatus(
        await api.post(`${p}/segments`, { key, name: 'n', description: 'd', matchType: 'ANY_MATCH_TYPE' }),
        200,
      );
      const updated = expectStatus(await api.put(`${p}/segments/${key}`, { name: 'renamed' }), 200);
      expect(sortedKeys(updated)).toEqual(SEGMENT_FIELDS);
      expect(updated).toMatchObject({ key, name: 'renamed', description: '', matchType: 'ALL_MATCH_TYPE', namespaceKey: ns, constraints: [] });
      expect(updated.createdAt).toBe(created.createdAt);
      expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
      const again = expectStatus(await api.put(`${p}/segments/${key}`, { name: 'n2', description: 'd2', matchType: 1 }), 200);
      expect(again).toMatchObject({ name: 'n2', description: 'd2', matchType: 'ANY_MATCH_TYPE' });
      expect(expectStatus(await api.get(`${p}/segments/${key}`), 200)).toEqual(again);
    });

    it('deletes idempotently', async () => {
      const { ns, p } = await newNamespace(api);
      const key = await createSegment(api, p);
      expect(expectStatus(await api.delete(`${p}/segments/${key}`), 200)).toEqual({});
      expectError(await api.get(`${p}/segments/${key}`), 404, `segment "${ns}/${key}" not found`);
      expect(expectStatus(await api.delete(`${p}/segments/${key}`), 200)).toEqual({});
      expect(expectStatus(await api.delete(`${p}/segments/never-existed`), 200)).toEqual({});
    });

    it('refuses to delete a segment used by a rule (segmentKey or segmentKeys) until the rule is gone', async () => {
      const { ns, p } = await newNamespace(api);
      const flag = await createFlag(api, p);
      const [a, b] = [await createSegment(api, p), await createSegment(api, p)];
      const single = expectStatus(await api.post(`${p}/flags/${flag}/rules`, { segmentKey: a, rank: 1 }), 200);
      const multi = expectStatus(await api.post(`${p}/flags/${flag}/rules`, { segmentKeys: [a, b], rank: 2 }), 200);
      expectError(await api.delete(`${p}/segments/${a}`), 400, `segment "${ns}/${a}" is in use`);
      expectError(await api.delete(`${p}/segments/${b}`), 400, `segment "${ns}/${b}" is in use`);
      expectStatus(await api.delete(`${p}/flags/${flag}/rules/${multi.id}`), 200);
      expectStatus(await api.delete(`${p}/segments/${b}`), 200);
      expectError(await api.delete(`${p}/segments/${a}`), 400, `segment "${ns}/${a}" is in use`);
      expectStatus(await api.delete(`${p}/flags/${flag}/rules/${single.id}`), 200);
      expectStatus(await api.delete(`${p}/segments/${a}`), 200);
      expectError(await api.get(`${p}/segments/${a}`), 404, `segment "${ns}/${a}" not found`);
    });

    it('refuses to delete a segment used by a rollout until the rollout is gone', async () => {
      const { ns, p } = await newNamespace(api);
      const flag = await createFlag(api, p, 'BOOLEAN_FLAG_TYPE');
      const seg = await createSegment(api, p);
      const rollout = expectStatus(await api.post(`${p}/flags/${flag}/rollouts`, { rank: 1, segment: { segmentKey: seg, value: true } }), 200);
      expectError(await api.delete(`${p}/segments/${seg}`), 400, `segment "${ns}/${seg}" is in use`);
      expectStatus(await api.delete(`${p}/flags/${flag}/rollouts/${rollout.id}`), 200);
      expectStatus(await api.delete(`${p}/segments/${seg}`), 200);
    });

    it('lists segments in creation order with constraints, nextPageToken "" and totalCount', async () => {
      const { p } = await newNamespace(api);
      const empty = expectStatus(await api.get(`${p}/segments`), 200);
      expect(empty).toEqual({ segments: [], nextPageToken: '', totalCount: 0 });
      const keys = ['zeta', 'alpha', 'mid'].map((k) => unique(k));
      for (const k of keys) await createSegment(api, p, k);
      const c = expectStatus(
        await api.post(`${p}/segments/${keys[1]}/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' }),
        200,
      );
      const list = expectStatus(await api.get(`${p}/segments`), 200);
      expect(sortedKeys(list)).toEqual(['nextPageToken', 'segments', 'totalCount']);
      expect(list.segments.map((s: { key: string }) => s.key)).toEqual(keys);
      expect(list.nextPageToken).toBe('');
      expect(list.totalCount).toBe(3);
      expect(list.segments[1].constraints).toEqual([c]);
      expect(list.segments[0].constraints).toEqual([]);
      expect(sortedKeys(list.segments[0])).toEqual(SEGMENT_FIELDS);
    });

    it('pages with limit and pageToken until nextPageToken is empty', async () => {
      const { p } = await newNamespace(api);
      const keys: string[] = [];
      for (let i = 0; i < 5; i++) keys.push(await createSegment(api, p, unique(`s${i}`)));
      const seen: string[] = [];
      let token = '';
      let pages = 0;
      do {
        const q = token === '' ? '?limit=2' : `?limit=2&pageToken=${encodeURIComponent(token)}`;
        const page = expectStatus(await api.get(`${p}/segments${q}`), 200);
        expect(page.totalCount).toBe(5);
        expect(page.segments.length).toBe(pages < 2 ? 2 : 1);
        seen.push(...page.segments.map((s: { key: string }) => s.key));
        token = page.nextPageToken;
        pages += 1;
      } while (token !== '' && pages < 10);
      expect(pages).toBe(3);
      expect(seen).toEqual(keys);
      // The deprecated offset also works; limit=0 means everything.
      const byOffset = expectStatus(await api.get(`${p}/segments?limit=2&offset=3`), 200);
      expect(byOffset.segments.map((s: { key: string }) => s.key)).toEqual(keys.slice(3));
      expect(byOffset.nextPageToken).toBe('');
      expect(expectStatus(await api.get(`${p}/segments?limit=0`), 200).segments).toHaveLength(5);
      // Go SDK style: empty and zero parameters accepted.
      expect(expectStatus(await api.get(`${p}/segments?limit=0&offset=0&pageToken=&reference=`), 200).segments).toHaveLength(5);
    });

    it('encodes the page token as base64 JSON {key, offset} of the next page (Flipt SQL format)', async () => {
      const { p } = await newNamespace(api);
      const keys: string[] = [];
      for (let i = 0; i < 3; i++) keys.push(await createSegment(api, p, unique(`t${i}`)));
      const page = expectStatus(await api.get(`${p}/segments?limit=2`), 200);
      expect(page.nextPageToken).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
      expect(decodeToken(page.nextPageToken)).toEqual({ key: keys[2], offset: 2 });
    });

    it('validates list parameters', async () => {
      const { p } = await newNamespace(api);
      const token = Buffer.from(JSON.stringify({ offset: 1 })).toString('base64');
      expectError(await api.get(`${p}/segments?pageToken=${encodeURIComponent(token)}`), 400, 'limit must be set when offset or pageToken is set');
      expectError(await api.get(`${p}/segments?offset=1`), 400, 'limit must be set when offset or pageToken is set');
      expectError(await api.get(`${p}/segments?limit=1&pageToken=bogus!`), 400, 'pageToken is not valid: "bogus!"');
    });
  });

  describe('Family A (/api/v1/segments)', () => {
    it('creates, gets, lists, updates and deletes in the default namespace', async () => {
      const key = unique('segA');
      const created = expectStatus(await api.post('/api/v1/segments', { key, name: 'A', description: 'd', matchType: 'ANY_MATCH_TYPE' }), 200);
      expect(created).toMatchObject({ key, name: 'A', description: 'd', matchType: 'ANY_MATCH_TYPE', namespaceKey: 'default', constraints: [] });
      expect(expectStatus(await api.get(`/api/v1/segments/${key}`), 200)).toEqual(created);
      expect(expectStatus(await api.get(`/api/v1/namespaces/default/segments/${key}`), 200)).toEqual(created);
      const list = expectStatus(await api.get('/api/v1/segments'), 200);
      expect(list.segments.map((s: { key: string }) => s.key)).toContain(key);
      expect(list.totalCount).toBe(list.segments.length);
      expect(list.nextPageToken).toBe('');
      const updated = expectStatus(await api.put(`/api/v1/segments/${key}`, { name: 'B' }), 200);
      expect(updated).toMatchObject({ key, name: 'B', description: '', matchType: 'ALL_MATCH_TYPE', namespaceKey: 'default' });
      expectError(await api.post('/api/v1/segments', { key, name: 'dup' }), 400, `segment "default/${key}" is not unique`);
      expect(expectStatus(await api.delete(`/api/v1/segments/${key}`), 200)).toEqual({});
      expect(expectStatus(await api.delete(`/api/v1/segments/${key}`), 200)).toEqual({});
      expectError(await api.get(`/api/v1/segments/${key}`), 404, `segment "default/${key}" not found`);
    });

    it('answers 404 segment "default/foo" not found', async () => {
      expectError(await api.get('/api/v1/segments/foo'), 404, 'segment "default/foo" not found');
      expectError(await api.put('/api/v1/segments/foo', { name: 'n' }), 404, 'segment "default/foo" not found');
    });

    it('takes the namespace from the body (POST/PUT) and the query (GET/DELETE)', async () => {
      const { ns } = await newNamespace(api);
      const key = unique('segA');
      expect(expectStatus(await api.post('/api/v1/segments', { key, name: 'n', namespaceKey: ns }), 200).namespaceKey).toBe(ns);
      expectError(await api.get(`/api/v1/segments/${key}`), 404, `segment "default/${key}" not found`);
      expect(expectStatus(await api.get(`/api/v1/segments/${key}?namespaceKey=${ns}`), 200).key).toBe(key);
      expect(expectStatus(await api.get(`/api/v1/segments?namespace_key=${ns}`), 200)).toMatchObject({ totalCount: 1 });
      const updated = expectStatus(await api.put(`/api/v1/segments/${key}`, { name: 'n2', namespaceKey: ns }), 200);
      expect(updated).toMatchObject({ name: 'n2', namespaceKey: ns });
      expectStatus(await api.delete(`/api/v1/segments/${key}?namespaceKey=${ns}`), 200);
      expectError(await api.get(`/api/v1/namespaces/${ns}/segments/${key}`), 404, `segment "${ns}/${key}" not found`);
    });
  });
});
