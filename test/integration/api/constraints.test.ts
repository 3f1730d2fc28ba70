import { describe, expect, it } from 'vitest';
import { expectStatus, useServer } from '../../support/server';
import { TIMESTAMP, UUID, createSegment, expectError, newNamespace, sortedKeys, unique } from '../../support/resources';

const CONSTRAINT_FIELDS = ['createdAt', 'description', 'id', 'namespaceKey', 'operator', 'property', 'segmentKey', 'type', 'updatedAt', 'value'].sort();
const ALL_OPERATORS = [
  'eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'empty', 'notempty', 'true', 'false',
  'present', 'notpresent', 'prefix', 'suffix', 'isoneof', 'isnotoneof', 'contains', 'notcontains',
];
const NO_VALUE = new Set(['true', 'false', 'empty', 'notempty', 'present', 'notpresent']);

/** Per type: its word in messages, a property it accepts, and a valid value for each allowed operator. */
const TYPES: Record<string, { word: string; property: string; values: Record<string, string> }> = {
  STRING_COMPARISON_TYPE: {
    word: 'string',
    property: 'plan',
    values: { eq: 'pro', neq: 'pro', empty: '', notempty: '', prefix: 'pr', suffix: 'o', isoneof: '["a","b"]', isnotoneof: '["a"]', contains: 'r', notcontains: 'x' },
  },
  NUMBER_COMPARISON_TYPE: {
    word: 'number',
    property: 'age',
    values: { eq: '42', neq: '42', lt: '1', lte: '1.5', gt: '-3', gte: '0', present: '', notpresent: '', isoneof: '[1,2.5]', isnotoneof: '[3]' },
  },
  BOOLEAN_COMPARISON_TYPE: { word: 'boolean', property: 'admin', values: { true: '', false: '', present: '', notpresent: '' } },
  DATETIME_COMPARISON_TYPE: {
    word: 'datetime',
    property: 'signup',
    values: {
      eq: '2024-01-01T08:00:00Z', neq: '2024-01-01', lt: '2024-01-01T08:00:00Z', lte: '2024-01-01', gt: '2024-01-01T08:00:00Z',
      gte: '2024-01-01', present: '', notpresent: '', isoneof: '2024-01-01', isnotoneof: '2024-01-01T08:00:00Z',
    },
  },
  ENTITY_ID_COMPARISON_TYPE: {
    word: 'entityId',
    property: 'entityId',
    values: { eq: 'user-1', neq: 'user-1', isoneof: '["u1","u2"]', isnotoneof: '["u3"]', contains: 'user', notcontains: 'bot' },
  },
};

describe('constraints API', () => {
  const server = useServer();
  const api = server.api;

  /** A fresh segment in a fresh namespace; returns its constraints URL and helpers. */
  async function segment() {
    const { ns, p } = await newNamespace(api);
    const key = await createSegment(api, p);
    const url = `${p}/segments/${key}/constraints`;
    return { ns, p, key, url, create: (body: object) => api.post(url, body) };
  }

  it('creates a constraint with every field and returns the Constraint shape', async () => {
    const { ns, p, key, create } = await segment();
    const c = expectStatus(
      await create({ type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'EQ', value: 'pro', description: 'paying' }),
      200,
    );
    expect(sortedKeys(c)).toEqual(CONSTRAINT_FIELDS);
    expect(c).toMatchObject({
      segmentKey: key,
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'eq',
      value: 'pro',
      namespaceKey: ns,
      description: 'paying',
    });
    expect(c.id).toMatch(UUID);
    expect(c.createdAt).toMatch(TIMESTAMP);
    expect(c.updatedAt).toMatch(TIMESTAMP);
    expect(expectStatus(await api.get(`${p}/segments/${key}`), 200).constraints).toEqual([c]);
  });

  it('accepts the type by number and defaults description to ""', async () => {
    const { create } = await segment();
    const c = expectStatus(await create({ type: 2, property: 'age', operator: 'gt', value: '3' }), 200);
    expect(c).toMatchObject({ type: 'NUMBER_COMPARISON_TYPE', description: '', operator: 'gt', value: '3' });
  });

  for (const [type, { property, values }] of Object.entries(TYPES)) {
    it(`creates every valid ${type} operator, stored lower-cased`, async () => {
      const { p, key, create } = await segment();
      const made: string[] = [];
      for (const [op, value] of Object.entries(values)) {
        const c = expectStatus(await create({ type, property, operator: op.toUpperCase(), value }), 200);
        expect({ type: c.type, property: c.property, operator: c.operator, value: c.value }).toEqual({ type, property, operator: op, value });
        made.push(c.id);
      }
      const seg = expectStatus(await api.get(`${p}/segments/${key}`), 200);
      expect(seg.constraints.map((c: { id: string }) => c.id)).toEqual(made);
    });

    it(`rejects every operator not valid for ${type}, quoting the operator as sent`, async () => {
      const { create } = await segment();
      const invalid = [...ALL_OPERATORS.filter((op) => !(op in values)), 'foo'];
      for (const [i, op] of invalid.entries()) {
        // Alternate spellings: the message quotes the operator as written.
        const sent = i % 2 === 0 ? op.toUpperCase() : op.charAt(0).toUpperCase() + op.slice(1);
        expectError(
          await create({ type, property, operator: sent, value: '1' }),
          400,
          `constraint operator "${sent}" is not valid for type ${TYPES[type].word}`,
        );
      }
    });
  }

  it('rejects an unknown or missing type', async () => {
    const { create } = await segment();
    const msg = 'invalid constraint type: "UNKNOWN_COMPARISON_TYPE"';
    expectError(await create({ property: 'p', operator: 'eq', value: 'v' }), 400, msg);
    expectError(await create({ type: 'UNKNOWN_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' }), 400, msg);
    expectError(await create({ type: 0, property: 'p', operator: 'eq', value: 'v' }), 400, msg);
  });

  it('requires property and operator', async () => {
    const { create } = await segment();
    expectError(await create({ type: 'STRING_COMPARISON_TYPE', operator: 'eq', value: 'v' }), 400, 'invalid field property: must not be empty');
    expectError(await create({ type: 'STRING_COMPARISON_TYPE', property: 'p', value: 'v' }), 400, 'invalid field operator: must not be empty');
  });

  it('accepts a property of 255 characters and rejects 256', async () => {
    const { create } = await segment();
    const ok = expectStatus(await create({ type: 'STRING_COMPARISON_TYPE', property: 'p'.repeat(255), operator: 'eq', value: 'v' }), 200);
    expect(ok.property).toBe('p'.repeat(255));
    const res = await create({ type: 'STRING_COMPARISON_TYPE', property: 'p'.repeat(256), operator: 'eq', value: 'v' });
    expect([res.status, res.body?.code]).toEqual([400, 3]);
  });

  it('requires property entityId for ENTITY_ID_COMPARISON_TYPE', async () => {
    const { create } = await segment();
    expectError(await create({ type: 'ENTITY_ID_COMPARISON_TYPE', property: 'foo', operator: 'eq', value: 'u' }), 400, 'property is foo instead of "entityId"');
    expectError(await create({ type: 'ENTITY_ID_COMPARISON_TYPE', property: 'entityid', operator: 'eq', value: 'u' }), 400, 'property is entityid instead of "entityId"');
  });

  it('requires a value except for operators that take none, whose value is stored as ""', async () => {
    const { create } = await segment();
    for (const [type, { property, values }] of Object.entries(TYPES)) {
      for (const op of Object.keys(values)) {
        if (NO_VALUE.has(op)) continue;
        expectError(await create({ type, property, operator: op }), 400, 'invalid field value: must not be empty');
      }
    }
    const cases: [string, string, string][] = [
      ['STRING_COMPARISON_TYPE', 'empty', 'ignored'],
      ['STRING_COMPARISON_TYPE', 'NOTEMPTY', 'ignored'],
      ['NUMBER_COMPARISON_TYPE', 'present', '12'],
      ['NUMBER_COMPARISON_TYPE', 'notpresent', '12'],
      ['BOOLEAN_COMPARISON_TYPE', 'TRUE', 'yes'],
      ['BOOLEAN_COMPARISON_TYPE', 'false', 'no'],
      ['BOOLEAN_COMPARISON_TYPE', 'present', 'x'],
      ['BOOLEAN_COMPARISON_TYPE', 'notpresent', 'x'],
    ];
    for (const [type, operator, value] of cases) {
      const c = expectStatus(await create({ type, property: 'p', operator, value }), 200);
      expect([c.operator, c.value]).toEqual([operator.toLowerCase(), '']);
    }
  });

  it('normalises datetime values to UTC RFC 3339 and keeps date-only values', async () => {
    const { create } = await segment();
    const cases: [string, string][] = [
      ['2024-01-01T10:00:00+02:00', '2024-01-01T08:00:00Z'],
      ['2024-01-01T00:30:00-01:00', '2024-01-01T01:30:00Z'],
      ['2023-12-31T23:00:00-02:00', '2024-01-01T01:00:00Z'],
      ['2024-01-01T10:00:00Z', '2024-01-01T10:00:00Z'],
      ['2024-01-01T10:00:00.123456Z', '2024-01-01T10:00:00Z'],
      ['2024-02-29', '2024-02-29'],
    ];
    for (const [value, stored] of cases) {
      const c = expectStatus(await create({ type: 'DATETIME_COMPARISON_TYPE', property: 'd', operator: 'gte', value }), 200);
      expect(c.value).toBe(stored);
    }
    for (const bad of ['not-a-date', '2024-13-01', '2023-02-29', '2024-01-01 10:00:00']) {
      expectError(await create({ type: 'DATETIME_COMPARISON_TYPE', property: 'd', operator: 'eq', value: bad }), 400, `parsing datetime from "${bad}"`);
    }
    // isoneof on datetime goes through the datetime branch, not the list check. Flipt quotes
    // the value with Go's %q, so inner quotes come back escaped.
    expectError(
      await create({ type: 'DATETIME_COMPARISON_TYPE', property: 'd', operator: 'isoneof', value: '["2024-01-01"]' }),
      400,
      'parsing datetime from "[\\"2024-01-01\\"]"',
    );
  });

  it('checks isoneof / isnotoneof values are JSON arrays of the right item type, at most 100', async () => {
    const { create } = await segment();
    const bad: [string, string, string, string][] = [
      ['STRING_COMPARISON_TYPE', 'plan', '[1,2]', 'string'],
      ['STRING_COMPARISON_TYPE', 'plan', 'a,b', 'string'],
      ['STRING_COMPARISON_TYPE', 'plan', '{"a":1}', 'string'],
      ['NUMBER_COMPARISON_TYPE', 'age', '["1"]', 'number'],
      ['NUMBER_COMPARISON_TYPE', 'age', '1', 'number'],
      ['ENTITY_ID_COMPARISON_TYPE', 'entityId', '[1]', 'entityId'],
      ['ENTITY_ID_COMPARISON_TYPE', 'entityId', 'u1', 'entityId'],
    ];
    for (const [type, property, value, word] of bad) {
      for (const operator of ['isoneof', 'isnotoneof']) {
        expectError(await create({ type, property, operator, value }), 400, `invalid value provided for property "${property}" of type ${word}`);
      }
    }
    const strings = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => `v${i}`));
    const numbers = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => i));
    const lists: [string, string, (n: number) => string, string][] = [
      ['STRING_COMPARISON_TYPE', 'plan', strings, 'string'],
      ['NUMBER_COMPARISON_TYPE', 'age', numbers, 'number'],
      ['ENTITY_ID_COMPARISON_TYPE', 'entityId', strings, 'entityId'],
    ];
    for (const [type, property, make, word] of lists) {
      expect(expectStatus(await create({ type, property, operator: 'isoneof', value: make(100) }), 200).value).toBe(make(100));
      expectError(
        await create({ type, property, operator: 'isnotoneof', value: make(101) }),
        400,
        `too many values provided for property "${property}" of type ${word} (maximum 100)`,
      );
    }
  });

  it('answers 404 when the segment does not exist', async () => {
    const { ns, p } = await newNamespace(api);
    expectError(
      await api.post(`${p}/segments/nope/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' }),
      404,
      `segment "${ns}/nope" not found`,
    );
  });

  it('updates every field with the same validation, keeping id and createdAt', async () => {
    const { p, key, url, create } = await segment();
    const c = expectStatus(await create({ type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro', description: 'd' }), 200);
    const u = expectStatus(
      await api.put(`${url}/${c.id}`, { type: 'DATETIME_COMPARISON_TYPE', property: 'signup', operator: 'LT', value: '2024-06-01T12:00:00+02:00' }),
      200,
    );
    expect(sortedKeys(u)).toEqual(CONSTRAINT_FIELDS);
    expect(u).toMatchObject({
      id: c.id,
      segmentKey: key,
      type: 'DATETIME_COMPARISON_TYPE',
      property: 'signup',
      operator: 'lt',
      value: '2024-06-01T10:00:00Z',
      description: '',
      createdAt: c.createdAt,
    });
    expect(expectStatus(await api.get(`${p}/segments/${key}`), 200).constraints).toEqual([u]);
    const nv = expectStatus(await api.put(`${url}/${c.id}`, { type: 3, property: 'admin', operator: 'True', value: 'x' }), 200);
    expect(nv).toMatchObject({ type: 'BOOLEAN_COMPARISON_TYPE', operator: 'true', value: '' });
    expectError(
      await api.put(`${url}/${c.id}`, { type: 'BOOLEAN_COMPARISON_TYPE', property: 'admin', operator: 'Eq', value: 'x' }),
      400,
      'constraint operator "Eq" is not valid for type boolean',
    );
    expectError(await api.put(`${url}/${c.id}`, { type: 'NUMBER_COMPARISON_TYPE', property: 'n', operator: 'eq' }), 400, 'invalid field value: must not be empty');
    expectError(await api.put(`${url}/${c.id}`, { type: 'ENTITY_ID_COMPARISON_TYPE', property: 'id', operator: 'eq', value: 'x' }), 400, 'property is id instead of "entityId"');
    expectError(await api.put(`${url}/${c.id}`, { property: 'p', operator: 'eq', value: 'x' }), 400, 'invalid constraint type: "UNKNOWN_COMPARISON_TYPE"');
  });

  it('answers 404 constraint "<id>" not found when updating a missing constraint', async () => {
    const { url, create } = await segment();
    const other = await segment();
    const body = { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' };
    const id = '00000000-0000-4000-8000-000000000000';
    expectError(await api.put(`${url}/${id}`, body), 404, `constraint "${id}" not found`);
    // A constraint of another segment is not found through this one.
    const c = expectStatus(await create(body), 200);
    expectError(await api.put(`${other.url}/${c.id}`, body), 404, `constraint "${c.id}" not found`);
  });

  it('deletes a constraint idempotently and keeps the others in creation order', async () => {
    const { p, key, url, create } = await segment();
    const ids: string[] = [];
    for (const v of ['a', 'b', 'c']) {
      ids.push(expectStatus(await create({ type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: v }), 200).id);
    }
    expect(expectStatus(await api.delete(`${url}/${ids[1]}`), 200)).toEqual({});
    expect(expectStatus(await api.delete(`${url}/${ids[1]}`), 200)).toEqual({});
    const seg = expectStatus(await api.get(`${p}/segments/${key}`), 200);
    expect(seg.constraints.map((c: { id: string; value: string }) => [c.id, c.value])).toEqual([[ids[0], 'a'], [ids[2], 'c']]);
  });

  it('deleting a segment deletes its constraints', async () => {
    const { p, key, url, create } = await segment();
    const body = { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' };
    const c = expectStatus(await create(body), 200);
    expectStatus(await api.delete(`${p}/segments/${key}`), 200);
    await createSegment(api, p, key);
    expect(expectStatus(await api.get(`${p}/segments/${key}`), 200).constraints).toEqual([]);
    expectError(await api.put(`${url}/${c.id}`, body), 404, `constraint "${c.id}" not found`);
  });

  it('works through Family A with the namespace from body and query', async () => {
    const { ns, p } = await newNamespace(api);
    const key = await createSegment(api, p);
    const c = expectStatus(
      await api.post(`/api/v1/segments/${key}/constraints`, { type: 'NUMBER_COMPARISON_TYPE', property: 'n', operator: 'GTE', value: '5', namespaceKey: ns }),
      200,
    );
    expect(c).toMatchObject({ namespaceKey: ns, segmentKey: key, operator: 'gte', value: '5' });
    const u = expectStatus(
      await api.put(`/api/v1/segments/${key}/constraints/${c.id}`, { type: 'NUMBER_COMPARISON_TYPE', property: 'n', operator: 'lt', value: '9', namespaceKey: ns }),
      200,
    );
    expect(u).toMatchObject({ id: c.id, operator: 'lt', value: '9', namespaceKey: ns });
    expectStatus(await api.delete(`/api/v1/segments/${key}/constraints/${c.id}?namespaceKey=${ns}`), 200);
    expect(expectStatus(await api.get(`${p}/segments/${key}`), 200).constraints).toEqual([]);
    // Default namespace when no namespaceKey is given.
    const dk = unique('segA');
    expectStatus(await api.post('/api/v1/segments', { key: dk, name: dk }), 200);
    const dc = expectStatus(await api.post(`/api/v1/segments/${dk}/constraints`, { type: 1, property: 'p', operator: 'prefix', value: 'x' }), 200);
    expect(dc).toMatchObject({ namespaceKey: 'default', segmentKey: dk, type: 'STRING_COMPARISON_TYPE' });
    expect(expectStatus(await api.get(`/api/v1/segments/${dk}`), 200).constraints).toEqual([dc]);
  });
});
