import { describe, expect, it } from 'vitest';
import { expectStatus, useServer } from '../../support/server';
import { TIMESTAMP, UUID, createFlag, createSegment, createVariant, expectError, newNamespace, sortedKeys } from '../../support/resources';

const DISTRIBUTION_FIELDS = ['createdAt', 'id', 'ruleId', 'rollout', 'updatedAt', 'variantId'].sort();

describe('distributions API', () => {
  const server = useServer();
  const api = server.api;

  /** A namespace with a variant flag, two variants, a segment and one rule. */
  async function setup() {
    const { ns, p } = await newNamespace(api);
    const flag = await createFlag(api, p);
    const [v1, v2] = [await createVariant(api, p, flag), await createVariant(api, p, flag)];
    const seg = await createSegment(api, p);
    const rule = expectStatus(await api.post(`${p}/flags/${flag}/rules`, { segmentKey: seg, rank: 1 }), 200).id as string;
    const ruleUrl = `${p}/flags/${flag}/rules/${rule}`;
    const url = `${ruleUrl}/distributions`;
    const getRule = async () => expectStatus(await api.get(ruleUrl), 200);
    return { ns, p, flag, v1, v2, seg, rule, ruleUrl, url, getRule, create: (body: object) => api.post(url, body) };
  }

  it('creates a distribution and returns it inside the rule, without namespaceKey', async () => {
    const { rule, v1, create, getRule } = await setup();
    const d = expectStatus(await create({ variantId: v1, rollout: 33.33 }), 200);
    expect(sortedKeys(d)).toEqual(DISTRIBUTION_FIELDS);
    expect(d).toMatchObject({ ruleId: rule, variantId: v1, rollout: 33.33 });
    expect(d.id).toMatch(UUID);
    expect(d.createdAt).toMatch(TIMESTAMP);
    expect(d.updatedAt).toMatch(TIMESTAMP);
    expect((await getRule()).distributions).toEqual([d]);
  });

  it('returns rollout as written and accepts the bounds 0 and 100', async () => {
    const { p, flag, v1, v2, create, getRule } = await setup();
    const values = [33.33, 66.67, 0, 100, 12.5, 0.1];
    const ids: string[] = [];
    for (const [i, rollout] of values.entries()) {
      const d = expectStatus(await create({ variantId: i % 2 ? v2 : v1, rollout }), 200);
      expect(d.rollout).toBe(rollout);
      ids.push(d.id);
    }
    // Distributions come back in creation order; the server does not check that they sum to 100.
    const rule = await getRule();
    expect(rule.distributions.map((d: { id: string; rollout: number }) => [d.id, d.rollout])).toEqual(ids.map((id, i) => [id, values[i]]));
    const list = expectStatus(await api.get(`${p}/flags/${flag}/rules`), 200);
    expect(list.rules[0].distributions.map((d: { id: string }) => d.id)).toEqual(ids);
  });

  it('validates variantId and rollout bounds', async () => {
    const { v1, create } = await setup();
    expectError(await create({ rollout: 50 }), 400, 'invalid field variantId: must not be empty');
    expectError(await create({ variantId: v1, rollout: -0.5 }), 400, "invalid field rollout: must be greater than or equal to '0'");
    expectError(await create({ variantId: v1, rollout: -100 }), 400, "invalid field rollout: must be greater than or equal to '0'");
    expectError(await create({ variantId: v1, rollout: 100.01 }), 400, "invalid field rollout: must be less than or equal to '100'");
    expectError(await create({ variantId: v1, rollout: 1000 }), 400, "invalid field rollout: must be less than or equal to '100'");
    // rollout is optional on the wire: absent means 0.
    expect(expectStatus(await create({ variantId: v1 }), 200).rollout).toBe(0);
  });

  it('answers 404 when variant, rule and flag do not belong together', async () => {
    const { ns, p, flag, v1, seg, rule, create } = await setup();
    const other = await createFlag(api, p);
    const foreignVariant = await createVariant(api, p, other);
    const foreignRule = expectStatus(await api.post(`${p}/flags/${other}/rules`, { segmentKey: seg, rank: 1 }), 200).id;
    const missing = (vid: string, rid: string, f = flag) => `variant "${vid}", rule "${rid}", flag "${f}" in namespace "${ns}" not found`;
    expectError(await create({ variantId: foreignVariant, rollout: 10 }), 404, missing(foreignVariant, rule));
    expectError(await create({ variantId: 'no-such-variant', rollout: 10 }), 404, missing('no-such-variant', rule));
    expectError(
      await api.post(`${p}/flags/${flag}/rules/${foreignRule}/distributions`, { variantId: v1, rollout: 10 }),
      404,
      missing(v1, foreignRule),
    );
    expectError(await api.post(`${p}/flags/nope/rules/${rule}/distributions`, { variantId: v1, rollout: 10 }), 404, missing(v1, rule, 'nope'));
  });

  it('updates variant and rollout, keeping id and createdAt', async () => {
    const { ns, flag, rule, v1, v2, url, create, getRule } = await setup();
    const d = expectStatus(await create({ variantId: v1, rollout: 50 }), 200);
    const u = expectStatus(await api.put(`${url}/${d.id}`, { variantId: v2, rollout: 33.33 }), 200);
    expect(sortedKeys(u)).toEqual(DISTRIBUTION_FIELDS);
    expect(u).toMatchObject({ id: d.id, ruleId: rule, variantId: v2, rollout: 33.33, createdAt: d.createdAt });
    expect((await getRule()).distributions).toEqual([u]);
    expectError(await api.put(`${url}/${d.id}`, { rollout: 10 }), 400, 'invalid field variantId: must not be empty');
    expectError(await api.put(`${url}/${d.id}`, { variantId: v1, rollout: 101 }), 400, "invalid field rollout: must be less than or equal to '100'");
    expectError(await api.put(`${url}/${d.id}`, { variantId: v1, rollout: -1 }), 400, "invalid field rollout: must be greater than or equal to '0'");
    expectError(
      await api.put(`${url}/${d.id}`, { variantId: 'ghost', rollout: 10 }),
      404,
      `variant "ghost", rule "${rule}", flag "${flag}" in namespace "${ns}" not found`,
    );
    const id = '00000000-0000-4000-8000-000000000004';
    expectError(await api.put(`${url}/${id}`, { variantId: v1, rollout: 10 }), 404, `distribution "${id}" not found`);
  });

  it('deletes with the variantId query parameter, idempotently', async () => {
    const { v1, v2, url, create, getRule } = await setup();
    const a = expectStatus(await create({ variantId: v1, rollout: 40 }), 200);
    const b = expectStatus(await create({ variantId: v2, rollout: 60 }), 200);
    expectError(await api.delete(`${url}/${a.id}`), 400, 'invalid field variantId: must not be empty');
    expect((await getRule()).distributions).toHaveLength(2);
    expect(expectStatus(await api.delete(`${url}/${a.id}?variantId=${v1}`), 200)).toEqual({});
    expect((await getRule()).distributions).toEqual([b]);
    expect(expectStatus(await api.delete(`${url}/${a.id}?variantId=${v1}`), 200)).toEqual({});
    expect(expectStatus(await api.delete(`${url}/00000000-0000-4000-8000-000000000005?variant_id=${v1}`), 200)).toEqual({});
    expect(expectStatus(await api.delete(`${url}/${b.id}?variant_id=${v2}`), 200)).toEqual({});
    expect((await getRule()).distributions).toEqual([]);
  });

  it('works through Family A with the namespace from body and query', async () => {
    const { ns, flag, rule, v1, v2, getRule } = await setup();
    const url = `/api/v1/flags/${flag}/rules/${rule}/distributions`;
    const d = expectStatus(await api.post(url, { variantId: v1, rollout: 25, namespaceKey: ns }), 200);
    expect(d).toMatchObject({ ruleId: rule, variantId: v1, rollout: 25 });
    const u = expectStatus(await api.put(`${url}/${d.id}`, { variantId: v2, rollout: 75, namespaceKey: ns }), 200);
    expect(u).toMatchObject({ id: d.id, variantId: v2, rollout: 75 });
    expect((await getRule()).distributions).toEqual([u]);
    expect(expectStatus(await api.get(`/api/v1/flags/${flag}/rules/${rule}?namespaceKey=${ns}`), 200).distributions).toEqual([u]);
    expectStatus(await api.delete(`${url}/${d.id}?variantId=${v2}&namespaceKey=${ns}`), 200);
    expect((await getRule()).distributions).toEqual([]);
    expectError(
      await api.post(url, { variantId: v1, rollout: 25 }),
      404,
      `variant "${v1}", rule "${rule}", flag "${flag}" in namespace "default" not found`,
    );
  });

  it('deleting a variant removes its distributions', async () => {
    const { p, flag, v1, v2, create, getRule } = await setup();
    const keep = expectStatus(await create({ variantId: v2, rollout: 50 }), 200);
    expectStatus(await create({ variantId: v1, rollout: 50 }), 200);
    expectStatus(await api.delete(`${p}/flags/${flag}/variants/${v1}`), 200);
    expect((await getRule()).distributions).toEqual([keep]);
  });

  it('deleting a rule removes its distributions', async () => {
    const { p, flag, seg, v1, url, ruleUrl, create } = await setup();
    const d = expectStatus(await create({ variantId: v1, rollout: 50 }), 200);
    expectStatus(await api.delete(ruleUrl), 200);
    expectError(await api.put(`${url}/${d.id}`, { variantId: v1, rollout: 10 }), 404, `distribution "${d.id}" not found`);
    // The variant is free of distributions: a new rule starts empty and the variant deletes cleanly.
    const again = expectStatus(await api.post(`${p}/flags/${flag}/rules`, { segmentKey: seg, rank: 1 }), 200);
    expect(again.distributions).toEqual([]);
    expectStatus(await api.delete(`${p}/flags/${flag}/variants/${v1}`), 200);
  });

  it('deleting a flag removes its rules and their distributions', async () => {
    const { ns, p, flag, rule, v1, url, create } = await setup();
    const d = expectStatus(await create({ variantId: v1, rollout: 50 }), 200);
    expectStatus(await api.delete(`${p}/flags/${flag}`), 200);
    expectError(await api.get(`${p}/flags/${flag}/rules/${rule}`), 404, `rule "${ns}/${rule}" not found`);
    await createFlag(api, p, 'VARIANT_FLAG_TYPE', flag);
    expect(expectStatus(await api.get(`${p}/flags/${flag}/rules`), 200)).toEqual({ rules: [], nextPageToken: '', totalCount: 0 });
    expectError(await api.put(`${url}/${d.id}`, { variantId: v1, rollout: 10 }), 404, `distribution "${d.id}" not found`);
  });
});
