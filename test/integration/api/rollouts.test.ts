import { describe, expect, it } from 'vitest';
import { expectStatus, useServer } from '../../support/server';
import { TIMESTAMP, UUID, createFlag, createSegment, expectError, newNamespace, sortedKeys } from '../../support/resources';

const ROLLOUT_BASE = ['createdAt', 'description', 'flagKey', 'id', 'namespaceKey', 'rank', 'type', 'updatedAt'];
const THRESHOLD_FIELDS = [...ROLLOUT_BASE, 'threshold'].sort();
const SEGMENT_FIELDS = [...ROLLOUT_BASE, 'segment'].sort();

describe('rollouts API (Family B only)', () => {
  const server = useServer();
  const api = server.api;

  /** A namespace with a boolean flag and three segments. */
  async function setup() {
    const { ns, p } = await newNamespace(api);
    const flag = await createFlag(api, p, 'BOOLEAN_FLAG_TYPE');
    const segs = [await createSegment(api, p), await createSegment(api, p), await createSegment(api, p)];
    const url = `${p}/flags/${flag}/rollouts`;
    const ranks = async () =>
      expectStatus(await api.get(url), 200).rules.map((r: { id: string; rank: number }) => [r.id, r.rank]) as [string, number][];
    const threshold = async (rank: number, percentage = 10) =>
      expectStatus(await api.post(url, { rank, threshold: { percentage, value: true } }), 200).id as string;
    return { ns, p, flag, segs, url, ranks, threshold, create: (body: object) => api.post(url, body) };
  }

  it('has no Family A routes', async () => {
    const { flag } = await setup();
    const notFound = { code: 5, message: 'Not Found', details: [] };
    for (const [method, path] of [
      ['GET', `/api/v1/flags/${flag}/rollouts`],
      ['POST', `/api/v1/flags/${flag}/rollouts`],
      ['GET', `/api/v1/flags/${flag}/rollouts/some-id`],
      ['PUT', `/api/v1/flags/${flag}/rollouts/some-id`],
      ['DELETE', `/api/v1/flags/${flag}/rollouts/some-id`],
      ['PUT', `/api/v1/flags/${flag}/rollouts/order`],
    ]) {
      const res = await api.request(method, path, method === 'GET' || method === 'DELETE' ? undefined : { rank: 1, threshold: { percentage: 5 } });
      expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 404, body: notFound });
    }
  });

  it('creates a threshold rollout with every field', async () => {
    const { ns, flag, url, create } = await setup();
    const r = expectStatus(await create({ rank: 1, description: 'ten percent', threshold: { percentage: 33.33, value: true } }), 200);
    expect(sortedKeys(r)).toEqual(THRESHOLD_FIELDS);
    expect(r).toMatchObject({
      namespaceKey: ns,
      flagKey: flag,
      type: 'THRESHOLD_ROLLOUT_TYPE',
      rank: 1,
      description: 'ten percent',
      threshold: { percentage: 33.33, value: true },
    });
    expect(sortedKeys(r.threshold)).toEqual(['percentage', 'value']);
    expect(r.id).toMatch(UUID);
    expect(r.createdAt).toMatch(TIMESTAMP);
    expect(r.updatedAt).toMatch(TIMESTAMP);
    expect(expectStatus(await api.get(`${url}/${r.id}`), 200)).toEqual(r);
  });

  it('fills zero values for an empty threshold', async () => {
    const { url, create } = await setup();
    const r = expectStatus(await create({ rank: 1, threshold: {} }), 200);
    expect(r).toMatchObject({ type: 'THRESHOLD_ROLLOUT_TYPE', description: '', threshold: { percentage: 0, value: false } });
    expect(expectStatus(await api.get(`${url}/${r.id}`), 200).threshold).toEqual({ percentage: 0, value: false });
  });

  it('creates a segment rollout with segmentKey: segmentKey set, segmentKeys [], OR', async () => {
    const { ns, flag, segs, url, create } = await setup();
    const r = expectStatus(await create({ rank: 1, description: 'beta', segment: { segmentKey: segs[0], value: true } }), 200);
    expect(sortedKeys(r)).toEqual(SEGMENT_FIELDS);
    expect(r).toMatchObject({ namespaceKey: ns, flagKey: flag, type: 'SEGMENT_ROLLOUT_TYPE', rank: 1, description: 'beta' });
    expect(r.segment).toEqual({ segmentKey: segs[0], value: true, segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    expect(expectStatus(await api.get(`${url}/${r.id}`), 200)).toEqual(r);
    const off = expectStatus(await create({ rank: 2, segment: { segmentKey: segs[1] } }), 200);
    expect(off.segment).toEqual({ segmentKey: segs[1], value: false, segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' });
  });

  it('creates a segment rollout with segmentKeys: list kept, operator honoured, one key forces OR, duplicates removed', async () => {
    const { segs, url, create } = await setup();
    const and = expectStatus(await create({ rank: 1, segment: { segmentKeys: [segs[1], segs[0]], segmentOperator: 'AND_SEGMENT_OPERATOR', value: true } }), 200);
    expect(and.segment).toEqual({ segmentKey: '', value: true, segmentKeys: [segs[1], segs[0]], segmentOperator: 'AND_SEGMENT_OPERATOR' });
    expect(expectStatus(await api.get(`${url}/${and.id}`), 200)).toEqual(and);
    const byNumber = expectStatus(await create({ rank: 2, segment: { segmentKeys: segs, segmentOperator: 1 } }), 200);
    expect(byNumber.segment).toMatchObject({ segmentKey: '', segmentKeys: segs, segmentOperator: 'AND_SEGMENT_OPERATOR' });
    const one = expectStatus(await create({ rank: 3, segment: { segmentKeys: [segs[2]], segmentOperator: 'AND_SEGMENT_OPERATOR' } }), 200);
    expect(one.segment).toEqual({ segmentKey: segs[2], value: false, segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    const dupes = expectStatus(await create({ rank: 4, segment: { segmentKeys: [segs[0], segs[1], segs[0]], segmentOperator: 'AND_SEGMENT_OPERATOR' } }), 200);
    expect(dupes.segment).toMatchObject({ segmentKey: '', segmentKeys: [segs[0], segs[1]], segmentOperator: 'AND_SEGMENT_OPERATOR' });
  });

  it('validates the rollout rule', async () => {
    const { segs, create } = await setup();
    expectError(await create({ rank: 1 }), 400, 'rollout rule is missing');
    expectError(await create({ rank: 1, description: 'only text' }), 400, 'rollout rule is missing');
    const pct = 'invalid field threshold.percentage: must be within range [0, 100]';
    expectError(await create({ rank: 1, threshold: { percentage: -1 } }), 400, pct);
    expectError(await create({ rank: 1, threshold: { percentage: 100.5 } }), 400, pct);
    expect(expectStatus(await create({ rank: 1, threshold: { percentage: 100 } }), 200).threshold.percentage).toBe(100);
    expectError(await create({ rank: 2, segment: {} }), 400, 'invalid field segmentKey or segmentKeys: must not be empty');
    expectError(await create({ rank: 2, segment: { segmentKey: segs[0], segmentKeys: [segs[1]] } }), 400, 'invalid field segmentKey or segmentKeys: only one can be present');
  });

  it('answers 404 flag "ns/f or segment s" not found for a missing flag or segment', async () => {
    const { ns, p, flag, segs, create } = await setup();
    expectError(await api.post(`${p}/flags/nope/rollouts`, { rank: 1, segment: { segmentKey: segs[0] } }), 404, `flag "${ns}/nope or segment ${segs[0]}" not found`);
    expectError(await create({ rank: 1, segment: { segmentKey: 'ghost' } }), 404, `flag "${ns}/${flag} or segment ghost" not found`);
    expect(expectStatus(await api.get(`${p}/flags/${flag}/rollouts`), 200).totalCount).toBe(0);
  });

  it('answers 404 rollout "<ns>/<id>" not found for a missing rollout', async () => {
    const flag = await createFlag(api, '/api/v1/namespaces/default', 'BOOLEAN_FLAG_TYPE');
    const url = `/api/v1/namespaces/default/flags/${flag}/rollouts`;
    const id = '00000000-0000-4000-8000-000000000010';
    expectError(await api.get(`${url}/${id}`), 404, `rollout "default/${id}" not found`);
    expectError(await api.put(`${url}/${id}`, { threshold: { percentage: 5 } }), 404, `rollout "default/${id}" not found`);
  });

  it('rejects a rank already in use and appends a rank of 0 or past n+1 as n+1', async () => {
    const { segs, threshold, create, ranks } = await setup();
    const a = await threshold(1);
    expectError(await create({ rank: 1, threshold: { percentage: 5 } }), 400, 'rank number: 1 already exists');
    const b = expectStatus(await create({ rank: 0, threshold: { percentage: 5 } }), 200);
    expect(b.rank).toBe(2);
    const c = expectStatus(await create({ threshold: { percentage: 5 } }), 200);
    expect(c.rank).toBe(3);
    const d = expectStatus(await create({ rank: 42, threshold: { percentage: 5 } }), 200);
    expect(d.rank).toBe(4);
    const e = expectStatus(await create({ rank: 5, threshold: { percentage: 5 } }), 200);
    expect(e.rank).toBe(5);
    expectError(await create({ rank: 3, segment: { segmentKey: segs[0] } }), 400, 'rank number: 3 already exists');
    expect(await ranks()).toEqual([[a, 1], [b.id, 2], [c.id, 3], [d.id, 4], [e.id, 5]]);
  });

  it('lists rollouts by rank in an array named rules, with nextPageToken and totalCount', async () => {
    const { segs, url, threshold, create } = await setup();
    expect(expectStatus(await api.get(url), 200)).toEqual({ rules: [], nextPageToken: '', totalCount: 0 });
    const a = await threshold(1, 20);
    const b = expectStatus(await create({ rank: 2, segment: { segmentKey: segs[0], value: true } }), 200);
    const c = await threshold(3, 30);
    const list = expectStatus(await api.get(url), 200);
    expect(sortedKeys(list)).toEqual(['nextPageToken', 'rules', 'totalCount']);
    expect(list.rules.map((r: { id: string }) => r.id)).toEqual([a, b.id, c]);
    expect(list).toMatchObject({ nextPageToken: '', totalCount: 3 });
    expect(list.rules[1]).toEqual(b);
    expect(sortedKeys(list.rules[0])).toEqual(THRESHOLD_FIELDS);
    const first = expectStatus(await api.get(`${url}?limit=2`), 200);
    expect(first.rules.map((r: { id: string }) => r.id)).toEqual([a, b.id]);
    expect(first.totalCount).toBe(3);
    expect(first.nextPageToken).not.toBe('');
    const second = expectStatus(await api.get(`${url}?limit=2&pageToken=${encodeURIComponent(first.nextPageToken)}`), 200);
    expect(second.rules.map((r: { id: string }) => r.id)).toEqual([c]);
    expect(second).toMatchObject({ nextPageToken: '', totalCount: 3 });
    // Rollout lists do not require a limit with a page token: the rest is returned.
    const rest = expectStatus(await api.get(`${url}?pageToken=${encodeURIComponent(first.nextPageToken)}`), 200);
    expect(rest.rules.map((r: { id: string }) => r.id)).toEqual([c]);
  });

  it('updates a threshold rollout; description is always overwritten, rank kept', async () => {
    const { url, threshold } = await setup();
    await threshold(1);
    const id = expectStatus(await api.post(url, { rank: 2, description: 'keep?', threshold: { percentage: 10, value: true } }), 200).id;
    const created = expectStatus(await api.get(`${url}/${id}`), 200);
    const u = expectStatus(await api.put(`${url}/${id}`, { rank: 1, threshold: { percentage: 66.67, value: false } }), 200);
    expect(sortedKeys(u)).toEqual(THRESHOLD_FIELDS);
    expect(u).toMatchObject({ id, rank: 2, description: '', type: 'THRESHOLD_ROLLOUT_TYPE', threshold: { percentage: 66.67, value: false }, createdAt: created.createdAt });
    expect(expectStatus(await api.get(`${url}/${id}`), 200)).toEqual(u);
    const d = expectStatus(await api.put(`${url}/${id}`, { description: 'now described', threshold: { percentage: 1, value: true } }), 200);
    expect(d).toMatchObject({ description: 'now described', threshold: { percentage: 1, value: true } });
    expectError(await api.put(`${url}/${id}`, { threshold: { percentage: 101 } }), 400, 'invalid field threshold.percentage: must be within range [0, 100]');
  });

  it('updates a segment rollout, applying the one-vs-many shape rule', async () => {
    const { ns, flag, segs, url, create } = await setup();
    const r = expectStatus(await create({ rank: 1, description: 'd', segment: { segmentKey: segs[0], value: true } }), 200);
    const multi = expectStatus(await api.put(`${url}/${r.id}`, { segment: { segmentKeys: [segs[1], segs[2]], segmentOperator: 'AND_SEGMENT_OPERATOR' } }), 200);
    expect(sortedKeys(multi)).toEqual(SEGMENT_FIELDS);
    expect(multi).toMatchObject({ id: r.id, rank: 1, description: '', type: 'SEGMENT_ROLLOUT_TYPE' });
    expect(multi.segment).toEqual({ segmentKey: '', value: false, segmentKeys: [segs[1], segs[2]], segmentOperator: 'AND_SEGMENT_OPERATOR' });
    expect(expectStatus(await api.get(`${url}/${r.id}`), 200)).toEqual(multi);
    const one = expectStatus(await api.put(`${url}/${r.id}`, { description: 'x', segment: { segmentKeys: [segs[2]], segmentOperator: 1, value: true } }), 200);
    expect(one).toMatchObject({ description: 'x' });
    expect(one.segment).toEqual({ segmentKey: segs[2], value: true, segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    // The old segments are no longer referenced.
    expectStatus(await api.delete(`/api/v1/namespaces/${ns}/segments/${segs[0]}`), 200);
    expectError(await api.put(`${url}/${r.id}`, { segment: { segmentKey: 'ghost' } }), 404, `flag "${ns}/${flag} or segment ghost" not found`);
    expectError(await api.put(`${url}/${r.id}`, { segment: {} }), 400, 'invalid field segmentKey or segmentKeys: must not be empty');
  });

  it('rejects an update without a rule or changing the rollout kind', async () => {
    const { segs, url, threshold, create } = await setup();
    const t = await threshold(1);
    const s = expectStatus(await create({ rank: 2, segment: { segmentKey: segs[0] } }), 200).id;
    expectError(await api.put(`${url}/${t}`, {}), 400, 'invalid field rule: invalid rollout rule type');
    expectError(await api.put(`${url}/${t}`, { description: 'only text' }), 400, 'invalid field rule: invalid rollout rule type');
    expectError(
      await api.put(`${url}/${t}`, { segment: { segmentKey: segs[0] } }),
      400,
      'cannot change type of rollout: have "THRESHOLD_ROLLOUT_TYPE" attempted "SEGMENT_ROLLOUT_TYPE"',
    );
    expectError(
      await api.put(`${url}/${s}`, { threshold: { percentage: 5 } }),
      400,
      'cannot change type of rollout: have "SEGMENT_ROLLOUT_TYPE" attempted "THRESHOLD_ROLLOUT_TYPE"',
    );
    expect(expectStatus(await api.get(`${url}/${t}`), 200).type).toBe('THRESHOLD_ROLLOUT_TYPE');
  });

  it('orders rollouts: listed first as 1..k, unknown ids ignored, unlisted after in previous order', async () => {
    const { url, threshold, ranks } = await setup();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push(await threshold(i, i * 10));
    const [a, b, c, d, e] = ids;
    expect(expectStatus(await api.put(`${url}/order`, { rolloutIds: [d, b] }), 200)).toEqual({});
    expect(await ranks()).toEqual([[d, 1], [b, 2], [a, 3], [c, 4], [e, 5]]);
    expectStatus(await api.put(`${url}/order`, { rolloutIds: ['nope', e, '00000000-0000-4000-8000-000000000011', a] }), 200);
    expect(await ranks()).toEqual([[e, 1], [a, 2], [d, 3], [b, 4], [c, 5]]);
    expectStatus(await api.put(`${url}/order`, { rollout_ids: [a, b, c, d, e] }), 200);
    expect(await ranks()).toEqual([[a, 1], [b, 2], [c, 3], [d, 4], [e, 5]]);
    expect(expectStatus(await api.get(`${url}/${c}`), 200).rank).toBe(3);
  });

  it('validates rolloutIds and never treats "order" as a rollout id', async () => {
    const { url, threshold, ranks } = await setup();
    const a = await threshold(1);
    const b = await threshold(2);
    const msg = 'invalid field rolloutIds: must contain atleast 2 elements';
    expectError(await api.put(`${url}/order`, {}), 400, msg);
    expectError(await api.put(`${url}/order`, { rolloutIds: [a] }), 400, msg);
    // A body that would be a valid rollout update is still an order request.
    expectError(await api.put(`${url}/order`, { threshold: { percentage: 5 } }), 400, msg);
    expect(await ranks()).toEqual([[a, 1], [b, 2]]);
  });

  it('deletes idempotently and re-ranks the rest 1..n, so ranks can be reused', async () => {
    const { url, threshold, create, ranks } = await setup();
    const ids: string[] = [];
    for (let i = 1; i <= 4; i++) ids.push(await threshold(i));
    expect(expectStatus(await api.delete(`${url}/${ids[1]}`), 200)).toEqual({});
    expect(await ranks()).toEqual([[ids[0], 1], [ids[2], 2], [ids[3], 3]]);
    expect(expectStatus(await api.delete(`${url}/${ids[1]}`), 200)).toEqual({});
    expect(expectStatus(await api.delete(`${url}/00000000-0000-4000-8000-000000000012`), 200)).toEqual({});
    expectError(await create({ rank: 3, threshold: { percentage: 1 } }), 400, 'rank number: 3 already exists');
    const next = expectStatus(await create({ rank: 4, threshold: { percentage: 1 } }), 200);
    expect(next.rank).toBe(4);
    expect(expectStatus(await api.delete(`${url}/${ids[0]}`), 200)).toEqual({});
    expect(await ranks()).toEqual([[ids[2], 1], [ids[3], 2], [next.id, 3]]);
  });

  it('deleting a flag removes its rollouts', async () => {
    const { ns, p, flag, segs, url, create } = await setup();
    const r = expectStatus(await create({ rank: 1, segment: { segmentKey: segs[0] } }), 200);
    expectStatus(await api.delete(`${p}/flags/${flag}`), 200);
    expectError(await api.get(`${url}/${r.id}`), 404, `rollout "${ns}/${r.id}" not found`);
    await createFlag(api, p, 'BOOLEAN_FLAG_TYPE', flag);
    expect(expectStatus(await api.get(url), 200)).toEqual({ rules: [], nextPageToken: '', totalCount: 0 });
    expect(expectStatus(await api.delete(`${p}/segments/${segs[0]}`), 200)).toEqual({});
  });
});
