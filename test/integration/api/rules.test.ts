import { describe, expect, it } from 'vitest';
import { expectStatus, useServer } from '../../support/server';
import { TIMESTAMP, UUID, createFlag, createSegment, expectError, newNamespace, sortedKeys } from '../../support/resources';

const RULE_FIELDS = ['createdAt', 'distributions', 'flagKey', 'id', 'namespaceKey', 'rank', 'segmentKey', 'segmentKeys', 'segmentOperator', 'updatedAt'].sort();

describe('rules API', () => {
  const server = useServer();
  const api = server.api;

  /** A namespace with a variant flag and three segments. */
  async function setup() {
    const { ns, p } = await newNamespace(api);
    const flag = await createFlag(api, p);
    const segs = [await createSegment(api, p), await createSegment(api, p), await createSegment(api, p)];
    const url = `${p}/flags/${flag}/rules`;
    const ranks = async () =>
      expectStatus(await api.get(url), 200).rules.map((r: { id: string; rank: number }) => [r.id, r.rank]) as [string, number][];
    return { ns, p, flag, segs, url, ranks, create: (body: object) => api.post(url, body) };
  }

  it('creates a rule with segmentKey: segmentKey set, segmentKeys [], OR operator', async () => {
    const { ns, flag, segs, url, create } = await setup();
    const r = expectStatus(await create({ segmentKey: segs[0], rank: 1 }), 200);
    expect(sortedKeys(r)).toEqual(RULE_FIELDS);
    expect(r).toMatchObject({
      flagKey: flag,
      segmentKey: segs[0],
      distributions: [],
      rank: 1,
      namespaceKey: ns,
      segmentKeys: [],
      segmentOperator: 'OR_SEGMENT_OPERATOR',
    });
    expect(r.id).toMatch(UUID);
    expect(r.createdAt).toMatch(TIMESTAMP);
    expect(r.updatedAt).toMatch(TIMESTAMP);
    expect(expectStatus(await api.get(`${url}/${r.id}`), 200)).toEqual(r);
  });

  it('creates a rule with two or more segmentKeys: segmentKey "", list kept, operator honoured', async () => {
    const { segs, url, create } = await setup();
    const and = expectStatus(await create({ segmentKeys: [segs[1], segs[0]], segmentOperator: 'AND_SEGMENT_OPERATOR', rank: 1 }), 200);
    expect(and).toMatchObject({ segmentKey: '', segmentKeys: [segs[1], segs[0]], segmentOperator: 'AND_SEGMENT_OPERATOR' });
    expect(expectStatus(await api.get(`${url}/${and.id}`), 200)).toEqual(and);
    const byNumber = expectStatus(await create({ segmentKeys: segs, segmentOperator: 1, rank: 2 }), 200);
    expect(byNumber).toMatchObject({ segmentKey: '', segmentKeys: segs, segmentOperator: 'AND_SEGMENT_OPERATOR' });
    const or = expectStatus(await create({ segment_keys: [segs[0], segs[2]], rank: 3 }), 200);
    expect(or).toMatchObject({ segmentKey: '', segmentKeys: [segs[0], segs[2]], segmentOperator: 'OR_SEGMENT_OPERATOR' });
  });

  it('forces OR for a single key in segmentKeys and removes duplicates', async () => {
    const { segs, url, create } = await setup();
    const one = expectStatus(await create({ segmentKeys: [segs[0]], segmentOperator: 'AND_SEGMENT_OPERATOR', rank: 1 }), 200);
    expect(one).toMatchObject({ segmentKey: segs[0], segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    expect(expectStatus(await api.get(`${url}/${one.id}`), 200)).toMatchObject({ segmentKey: segs[0], segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    const dupes = expectStatus(await create({ segmentKeys: [segs[0], segs[1], segs[0], segs[1]], segmentOperator: 'AND_SEGMENT_OPERATOR', rank: 2 }), 200);
    expect(dupes).toMatchObject({ segmentKey: '', segmentKeys: [segs[0], segs[1]], segmentOperator: 'AND_SEGMENT_OPERATOR' });
    const collapsed = expectStatus(await create({ segmentKeys: [segs[2], segs[2]], segmentOperator: 'AND_SEGMENT_OPERATOR', rank: 3 }), 200);
    expect(collapsed).toMatchObject({ segmentKey: segs[2], segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' });
  });

  it('validates segment keys and rank', async () => {
    const { segs, create } = await setup();
    expectError(await create({ rank: 1 }), 400, 'invalid field segmentKey or segmentKeys: must not be empty');
    expectError(await create({ rank: 1, segmentKeys: [] }), 400, 'invalid field segmentKey or segmentKeys: must not be empty');
    expectError(await create({ rank: 1, segmentKey: segs[0], segmentKeys: [segs[1]] }), 400, 'invalid field segmentKey or segmentKeys: only one can be present');
    expectError(await create({ segmentKey: segs[0] }), 400, 'invalid field rank: must be greater than 0');
    expectError(await create({ segmentKey: segs[0], rank: 0 }), 400, 'invalid field rank: must be greater than 0');
    expectError(await create({ segmentKey: segs[0], rank: -2 }), 400, 'invalid field rank: must be greater than 0');
  });

  it('answers 404 when the flag or a segment is missing', async () => {
    const { ns, p, flag, segs, create } = await setup();
    expectError(await api.post(`${p}/flags/nope/rules`, { segmentKey: segs[0], rank: 1 }), 404, `flag "${ns}/nope" or segment "${ns}/${segs[0]}" not found`);
    expectError(await create({ segmentKey: 'ghost', rank: 1 }), 404, `flag "${ns}/${flag}" or segment "${ns}/ghost" not found`);
    expect(expectStatus(await api.get(`${p}/flags/${flag}/rules`), 200).totalCount).toBe(0);
  });

  it('answers 404 rule "<ns>/<id>" not found for a missing rule', async () => {
    const { ns, segs, url } = await setup();
    const id = '00000000-0000-4000-8000-000000000001';
    expectError(await api.get(`${url}/${id}`), 404, `rule "${ns}/${id}" not found`);
    expectError(await api.put(`${url}/${id}`, { segmentKey: segs[0] }), 404, `rule "${ns}/${id}" not found`);
    const flag = await createFlag(api, '/api/v1/namespaces/default');
    expectError(await api.get(`/api/v1/flags/${flag}/rules/${id}`), 404, `rule "default/${id}" not found`);
  });

  it('lists rules ordered by rank as {rules, nextPageToken, totalCount} and pages them', async () => {
    const { flag, segs, url, create } = await setup();
    expect(expectStatus(await api.get(url), 200)).toEqual({ rules: [], nextPageToken: '', totalCount: 0 });
    const a = expectStatus(await create({ segmentKey: segs[0], rank: 1 }), 200);
    const b = expectStatus(await create({ segmentKey: segs[1], rank: 1 }), 200);
    const c = expectStatus(await create({ segmentKey: segs[2], rank: 3 }), 200);
    const list = expectStatus(await api.get(url), 200);
    expect(sortedKeys(list)).toEqual(['nextPageToken', 'rules', 'totalCount']);
    expect(list.rules.map((r: { id: string; rank: number }) => [r.id, r.rank])).toEqual([[b.id, 1], [a.id, 2], [c.id, 3]]);
    expect(list).toMatchObject({ nextPageToken: '', totalCount: 3 });
    expect(list.rules[0]).toMatchObject({ flagKey: flag, segmentKey: segs[1], segmentKeys: [], distributions: [] });
    const first = expectStatus(await api.get(`${url}?limit=2`), 200);
    expect(first.rules.map((r: { id: string }) => r.id)).toEqual([b.id, a.id]);
    expect(first.totalCount).toBe(3);
    expect(first.nextPageToken).not.toBe('');
    const second = expectStatus(await api.get(`${url}?limit=2&pageToken=${encodeURIComponent(first.nextPageToken)}`), 200);
    expect(second.rules.map((r: { id: string }) => r.id)).toEqual([c.id]);
    expect(second).toMatchObject({ nextPageToken: '', totalCount: 3 });
    expectError(await api.get(`${url}?pageToken=${encodeURIComponent(first.nextPageToken)}`), 400, 'limit must be set when offset or pageToken is set');
  });

  it('updates segments and operator but never the rank', async () => {
    const { ns, flag, segs, url, create } = await setup();
    expectStatus(await create({ segmentKey: segs[2], rank: 1 }), 200);
    const r = expectStatus(await create({ segmentKey: segs[0], rank: 2 }), 200);
    const multi = expectStatus(await api.put(`${url}/${r.id}`, { segmentKeys: [segs[0], segs[1]], segmentOperator: 'AND_SEGMENT_OPERATOR', rank: 1 }), 200);
    expect(sortedKeys(multi)).toEqual(RULE_FIELDS);
    expect(multi).toMatchObject({ id: r.id, rank: 2, segmentKey: '', segmentKeys: [segs[0], segs[1]], segmentOperator: 'AND_SEGMENT_OPERATOR', createdAt: r.createdAt });
    expect(expectStatus(await api.get(`${url}/${r.id}`), 200)).toEqual(multi);
    const single = expectStatus(await api.put(`${url}/${r.id}`, { segmentKeys: [segs[1]], segmentOperator: 'AND_SEGMENT_OPERATOR' }), 200);
    expect(single).toMatchObject({ rank: 2, segmentKey: segs[1], segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    const back = expectStatus(await api.put(`${url}/${r.id}`, { segmentKey: segs[2] }), 200);
    expect(back).toMatchObject({ segmentKey: segs[2], segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    expectError(await api.put(`${url}/${r.id}`, {}), 400, 'invalid field segmentKey or segmentKeys: must not be empty');
    expectError(await api.put(`${url}/${r.id}`, { segmentKey: segs[0], segmentKeys: [segs[1]] }), 400, 'invalid field segmentKey or segmentKeys: only one can be present');
    expectError(await api.put(`${url}/${r.id}`, { segmentKey: 'ghost' }), 404, `flag "${ns}/${flag}" or segment "${ns}/ghost" not found`);
  });

  it('inserts a new rule at min(rank, n+1), shifting later rules down (ranks stay 1..n)', async () => {
    const { segs, create, ranks } = await setup();
    const r1 = expectStatus(await create({ segmentKey: segs[0], rank: 1 }), 200);
    const r2 = expectStatus(await create({ segmentKey: segs[0], rank: 7 }), 200);
    expect(r2.rank).toBe(2);
    const r0 = expectStatus(await create({ segmentKey: segs[1], rank: 1 }), 200);
    expect(r0.rank).toBe(1);
    expect(await ranks()).toEqual([[r0.id, 1], [r1.id, 2], [r2.id, 3]]);
    const mid = expectStatus(await create({ segmentKey: segs[2], rank: 2 }), 200);
    expect(mid.rank).toBe(2);
    expect(await ranks()).toEqual([[r0.id, 1], [mid.id, 2], [r1.id, 3], [r2.id, 4]]);
    const end = expectStatus(await create({ segmentKey: segs[2], rank: 5 }), 200);
    expect(end.rank).toBe(5);
    expect(await ranks()).toEqual([[r0.id, 1], [mid.id, 2], [r1.id, 3], [r2.id, 4], [end.id, 5]]);
  });

  it('deletes idempotently and re-ranks the remaining rules 1..n', async () => {
    const { segs, url, create, ranks } = await setup();
    const ids: string[] = [];
    for (let i = 1; i <= 4; i++) ids.push(expectStatus(await create({ segmentKey: segs[0], rank: i }), 200).id);
    expect(expectStatus(await api.delete(`${url}/${ids[1]}`), 200)).toEqual({});
    expect(await ranks()).toEqual([[ids[0], 1], [ids[2], 2], [ids[3], 3]]);
    expect(expectStatus(await api.delete(`${url}/${ids[1]}`), 200)).toEqual({});
    expect(expectStatus(await api.delete(`${url}/00000000-0000-4000-8000-000000000002`), 200)).toEqual({});
    expect(expectStatus(await api.delete(`${url}/${ids[0]}`), 200)).toEqual({});
    expect(await ranks()).toEqual([[ids[2], 1], [ids[3], 2]]);
    expect(expectStatus(await api.get(`${url}/${ids[3]}`), 200).rank).toBe(2);
  });

  it('orders rules: listed first as 1..k, unknown ids ignored, unlisted after in previous order', async () => {
    const { segs, url, create, ranks } = await setup();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push(expectStatus(await create({ segmentKey: segs[i % 3], rank: i }), 200).id);
    const [a, b, c, d, e] = ids;
    expect(expectStatus(await api.put(`${url}/order`, { ruleIds: [e, b] }), 200)).toEqual({});
    expect(await ranks()).toEqual([[e, 1], [b, 2], [a, 3], [c, 4], [d, 5]]);
    expectStatus(await api.put(`${url}/order`, { ruleIds: ['not-a-rule', d, '00000000-0000-4000-8000-000000000003', a] }), 200);
    expect(await ranks()).toEqual([[d, 1], [a, 2], [e, 3], [b, 4], [c, 5]]);
    expectStatus(await api.put(`${url}/order`, { rule_ids: [a, b, c, d, e] }), 200);
    expect(await ranks()).toEqual([[a, 1], [b, 2], [c, 3], [d, 4], [e, 5]]);
    expect(expectStatus(await api.get(`${url}/${c}`), 200).rank).toBe(3);
  });

  it('keeps rules of another flag out of an order request', async () => {
    const { p, segs, url, create, ranks } = await setup();
    const a = expectStatus(await create({ segmentKey: segs[0], rank: 1 }), 200).id;
    const b = expectStatus(await create({ segmentKey: segs[0], rank: 2 }), 200).id;
    const other = await createFlag(api, p);
    const foreign = expectStatus(await api.post(`${p}/flags/${other}/rules`, { segmentKey: segs[0], rank: 1 }), 200).id;
    expectStatus(await api.put(`${url}/order`, { ruleIds: [foreign, b, a] }), 200);
    expect(await ranks()).toEqual([[b, 1], [a, 2]]);
    expect(expectStatus(await api.get(`${p}/flags/${other}/rules/${foreign}`), 200).rank).toBe(1);
  });

  it('validates ruleIds and never treats "order" as a rule id', async () => {
    const { segs, url, create, ranks } = await setup();
    const a = expectStatus(await create({ segmentKey: segs[0], rank: 1 }), 200).id;
    const b = expectStatus(await create({ segmentKey: segs[1], rank: 2 }), 200).id;
    const msg = 'invalid field ruleIds: must contain atleast 2 elements';
    expectError(await api.put(`${url}/order`, {}), 400, msg);
    expectError(await api.put(`${url}/order`, { ruleIds: [b] }), 400, msg);
    // A body that would be a valid rule update is still an order request.
    expectError(await api.put(`${url}/order`, { segmentKey: segs[0] }), 400, msg);
    expect(await ranks()).toEqual([[a, 1], [b, 2]]);
  });

  it('works through Family A with the namespace from body and query', async () => {
    const { ns, flag, segs } = await setup();
    const url = `/api/v1/flags/${flag}/rules`;
    const r1 = expectStatus(await api.post(url, { segmentKey: segs[0], rank: 1, namespaceKey: ns }), 200);
    expect(r1).toMatchObject({ namespaceKey: ns, flagKey: flag, segmentKey: segs[0], rank: 1 });
    const r2 = expectStatus(await api.post(url, { segmentKeys: [segs[0], segs[1]], segmentOperator: 'AND_SEGMENT_OPERATOR', rank: 1, namespaceKey: ns }), 200);
    expect(r2).toMatchObject({ rank: 1, segmentKey: '', segmentKeys: [segs[0], segs[1]], segmentOperator: 'AND_SEGMENT_OPERATOR' });
    expect(expectStatus(await api.get(`${url}/${r1.id}?namespaceKey=${ns}`), 200).rank).toBe(2);
    const list = expectStatus(await api.get(`${url}?namespaceKey=${ns}`), 200);
    expect(list.rules.map((r: { id: string }) => r.id)).toEqual([r2.id, r1.id]);
    expect(list.totalCount).toBe(2);
    expectStatus(await api.put(`${url}/order`, { ruleIds: [r1.id, r2.id], namespaceKey: ns }), 200);
    expect(expectStatus(await api.get(`${url}/${r1.id}?namespaceKey=${ns}`), 200).rank).toBe(1);
    const u = expectStatus(await api.put(`${url}/${r1.id}`, { segmentKey: segs[2], namespaceKey: ns }), 200);
    expect(u).toMatchObject({ id: r1.id, segmentKey: segs[2], rank: 1 });
    expectStatus(await api.delete(`${url}/${r1.id}?namespaceKey=${ns}`), 200);
    expect(expectStatus(await api.get(`${url}/${r2.id}?namespaceKey=${ns}`), 200).rank).toBe(1);
    // Without namespaceKey, Family A means the default namespace.
    expectError(await api.post(url, { segmentKey: segs[0], rank: 1 }), 404, `flag "default/${flag}" or segment "default/${segs[0]}" not found`);
  });

  it('deleting a flag removes its rules', async () => {
    const { ns, p, flag, segs, url, create } = await setup();
    const r = expectStatus(await create({ segmentKey: segs[0], rank: 1 }), 200);
    expectStatus(await api.delete(`${p}/flags/${flag}`), 200);
    expectError(await api.get(`${url}/${r.id}`), 404, `rule "${ns}/${r.id}" not found`);
    // The segment is no longer in use, and a new flag with the same key starts with no rules.
    await createFlag(api, p, 'VARIANT_FLAG_TYPE', flag);
    expect(expectStatus(await api.get(url), 200)).toEqual({ rules: [], nextPageToken: '', totalCount: 0 });
    expect(expectStatus(await api.delete(`${p}/segments/${segs[0]}`), 200)).toEqual({});
  });
});
