import { beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, useServer, type ApiResponse } from '../../support/server';

/**
 * Flags in both route families (Flipt: `internal/server/flag.go`, `rpc/flipt/validation.go`, errors
 * as its gateway writes them).
 * Variants: variants.test.ts. Paging: flags-pagination.test.ts.
 */

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?Z$/;
const FLAG_FIELDS = ['key', 'name', 'description', 'enabled', 'createdAt', 'updatedAt', 'variants', 'namespaceKey', 'type'];

let seq = 0;
const uniqueKey = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

function expectError(res: ApiResponse, status: number, code: number, message: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toEqual({ code, message, details: [] });
}

/** How one route family addresses the flags of namespace `ns`. */
interface Family {
  label: string;
  ns: string;
  /** Collection path, e.g. `/api/v1/flags`. */
  base: string;
  /** Query string (with `?`) selecting the namespace on GET and DELETE. */
  query: string;
  /** Body fields selecting the namespace on POST and PUT. */
  body: Record<string, unknown>;
}

function familyB(ns: string): Family {
  return { label: `Family B (/api/v1/namespaces/${ns}/flags)`, ns, base: `/api/v1/namespaces/${ns}/flags`, query: '', body: {} };
}
function familyA(ns?: string): Family {
  return ns === undefined
    ? { label: 'Family A (/api/v1/flags, default)', ns: 'default', base: '/api/v1/flags', query: '', body: {} }
    : { label: `Family A (/api/v1/flags, namespaceKey=${ns})`, ns, base: '/api/v1/flags', query: `?namespaceKey=${ns}`, body: { namespaceKey: ns } };
}

const NS_B = 'flags-b';
const NS_A = 'flags-a';

const server = useServer();
beforeAll(async () => {
  for (const key of [NS_B, NS_A]) expectStatus(await server.api.post('/api/v1/namespaces', { key, name: key }), 200);
});

describe.each([familyB(NS_B), familyA(), familyA(NS_A)])('flags: $label', (family) => {
  const { ns } = family;
  const get = (key = '') => server.api.get(`${family.base}${key && `/${key}`}${family.query}`);
  const del = (key: string) => server.api.delete(`${family.base}/${key}${family.query}`);
  const create = (body: Record<string, unknown>) => server.api.post(family.base, { ...family.body, ...body });
  const update = (key: string, body: Record<string, unknown>) => server.api.put(`${family.base}/${key}`, { ...family.body, ...body });
  const addVariant = async (flagKey: string, key: string) =>
    expectStatus(await server.api.post(`${family.base}/${flagKey}/variants`, { ...family.body, key }), 200);

  describe('create', () => {
    it('creates a variant flag with every field and zero value, no metadata, no defaultVariant', async () => {
      const key = uniqueKey('plain');
      const before = Date.now();
      const flag = expectStatus(await create({ key, name: 'Plain' }), 200);
      expect(Object.keys(flag)).toEqual(FLAG_FIELDS);
      expect(flag).toEqual({
        key,
        name: 'Plain',
        description: '',
        enabled: false,
        createdAt: expect.stringMatching(RFC3339_UTC),
        updatedAt: expect.stringMatching(RFC3339_UTC),
        variants: [],
        namespaceKey: ns,
        type: 'VARIANT_FLAG_TYPE',
      });
      expect(Date.parse(flag.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(flag.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('creates a boolean flag by type name, with description and enabled', async () => {
      const key = uniqueKey('bool');
      const flag = expectStatus(await create({ key, name: 'Bool', description: 'd', enabled: true, type: 'BOOLEAN_FLAG_TYPE' }), 200);
      expect(flag).toMatchObject({ key, name: 'Bool', description: 'd', enabled: true, type: 'BOOLEAN_FLAG_TYPE', namespaceKey: ns });
      expect(expectStatus(await get(key), 200).type).toBe('BOOLEAN_FLAG_TYPE');
    });

    it('accepts the type by number (1 = boolean, 0 = variant)', async () => {
      const b = uniqueKey('num1');
      const v = uniqueKey('num0');
      expect(expectStatus(await create({ key: b, name: 'B', type: 1 }), 200).type).toBe('BOOLEAN_FLAG_TYPE');
      expect(expectStatus(await create({ key: v, name: 'V', type: 0 }), 200).type).toBe('VARIANT_FLAG_TYPE');
      expect(expectStatus(await get(b), 200).type).toBe('BOOLEAN_FLAG_TYPE');
    });

    it('stores metadata and echoes it', async () => {
      const key = uniqueKey('meta');
      const metadata = { team: 'core', n: 3, nested: { ok: true }, list: ['a', 1] };
      const flag = expectStatus(await create({ key, name: 'Meta', metadata }), 200);
      expect(Object.keys(flag)).toEqual([...FLAG_FIELDS, 'metadata']);
      expect(flag.metadata).toEqual(metadata);
      expect(expectStatus(await get(key), 200).metadata).toEqual(metadata);
    });

    it('echoes an empty metadata object on create, while GET omits it', async () => {
      const key = uniqueKey('meta-empty');
      expect(expectStatus(await create({ key, name: 'M', metadata: {} }), 200).metadata).toEqual({});
      expect(expectStatus(await get(key), 200)).not.toHaveProperty('metadata');
    });

    it('rejects an empty key, a key with invalid characters and an empty name', async () => {
      expectError(await create({ name: 'No key' }), 400, 3, 'invalid field key: must not be empty');
      expectError(await create({ key: 'a b', name: 'Spaces' }), 400, 3, 'invalid field key: contains invalid characters');
      expectError(await create({ key: uniqueKey('noname') }), 400, 3, 'invalid field name: must not be empty');
    });

    it('rejects a duplicate key', async () => {
      const key = uniqueKey('dup');
      expectStatus(await create({ key, name: 'One' }), 200);
      expectError(await create({ key, name: 'Two' }), 400, 3, `flag "${ns}/${key}" is not unique`);
    });
  });

  describe('get and list', () => {
    it('GET returns the flag as created, without metadata', async () => {
      const key = uniqueKey('get');
      const created = expectStatus(await create({ key, name: 'Get', description: 'x', enabled: true }), 200);
      const got = expectStatus(await get(key), 200);
      expect(got).toEqual(created);
      expect(got).not.toHaveProperty('metadata');
      expect(got).not.toHaveProperty('defaultVariant');
    });

    it('GET of a missing flag is 404', async () => {
      expectError(await get('foo'), 404, 5, `flag "${ns}/foo" not found`);
    });

    it('list is {flags, nextPageToken, totalCount} and emits metadata {} for flags without any', async () => {
      const plain = uniqueKey('list-plain');
      const meta = uniqueKey('list-meta');
      expectStatus(await create({ key: plain, name: 'Plain' }), 200);
      expectStatus(await create({ key: meta, name: 'Meta', metadata: { a: 'b' } }), 200);
      const list = expectStatus(await get(), 200);
      expect(Object.keys(list)).toEqual(['flags', 'nextPageToken', 'totalCount']);
      expect(list.nextPageToken).toBe('');
      expect(list.totalCount).toBe(list.flags.length);
      const keys: string[] = list.flags.map((f: { key: string }) => f.key);
      expect(keys.indexOf(plain)).toBeLessThan(keys.indexOf(meta));
      const listedPlain = list.flags.find((f: { key: string }) => f.key === plain);
      expect(Object.keys(listedPlain)).toEqual([...FLAG_FIELDS, 'metadata']);
      expect(listedPlain.metadata).toEqual({});
      expect(listedPlain.namespaceKey).toBe(ns);
      expect(list.flags.find((f: { key: string }) => f.key === meta).metadata).toEqual({ a: 'b' });
      for (const f of list.flags) expect(f.namespaceKey).toBe(ns);
    });
  });

  describe('update (PUT is a full replace)', () => {
    it('overwrites name and description; omitting enabled turns the flag off', async () => {
      const key = uniqueKey('upd');
      const created = expectStatus(await create({ key, name: 'Before', description: 'old', enabled: true }), 200);
      const updated = expectStatus(await update(key, { name: 'After' }), 200);
      expect(Object.keys(updated)).toEqual(FLAG_FIELDS);
      expect(updated).toMatchObject({ key, name: 'After', description: '', enabled: false, namespaceKey: ns, createdAt: created.createdAt });
      expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
      expect(expectStatus(await get(key), 200)).toEqual(updated);
      expect(expectStatus(await update(key, { name: 'On', enabled: true }), 200).enabled).toBe(true);
    });

    it('uses the key from the path and cannot change the type', async () => {
      const key = uniqueKey('upd-type');
      expectStatus(await create({ key, name: 'T' }), 200);
      const updated = expectStatus(await update(key, { key: 'other', name: 'T2', type: 'BOOLEAN_FLAG_TYPE' }), 200);
      expect(updated).toMatchObject({ key, name: 'T2', type: 'VARIANT_FLAG_TYPE' });
    });

    it('defaultVariantId sets defaultVariant as the full variant; empty or missing clears it', async () => {
      const key = uniqueKey('upd-default');
      expectStatus(await create({ key, name: 'D' }), 200);
      const v1 = await addVariant(key, 'one');
      await addVariant(key, 'two');
      const updated = expectStatus(await update(key, { name: 'D', defaultVariantId: v1.id }), 200);
      expect(Object.keys(updated)).toEqual([...FLAG_FIELDS, 'defaultVariant']);
      expect(updated.defaultVariant).toEqual(v1);
      expect(updated.variants.map((v: { key: string }) => v.key)).toEqual(['one', 'two']);
      expect(expectStatus(await get(key), 200).defaultVariant).toEqual(v1);

      const cleared = expectStatus(await update(key, { name: 'D', defaultVariantId: '' }), 200);
      expect(cleared).not.toHaveProperty('defaultVariant');
      expectStatus(await update(key, { name: 'D', defaultVariantId: v1.id }), 200);
      const omitted = expectStatus(await update(key, { name: 'D' }), 200);
      expect(omitted).not.toHaveProperty('defaultVariant');
      expect(expectStatus(await get(key), 200)).not.toHaveProperty('defaultVariant');
    });

    it('rejects a defaultVariantId that belongs to another flag', async () => {
      const key = uniqueKey('upd-foreign');
      const other = uniqueKey('upd-foreign-other');
      expectStatus(await create({ key, name: 'F' }), 200);
      expectStatus(await create({ key: other, name: 'O' }), 200);
      const foreign = await addVariant(other, 'v');
      expectError(
        await update(key, { name: 'F', defaultVariantId: foreign.id }),
        400,
        3,
        `variant "${foreign.id}" not found for flag "${ns}/${key}"`,
      );
      const unknown = '00000000-0000-4000-8000-000000000000';
      expectError(await update(key, { name: 'F', defaultVariantId: unknown }), 400, 3, `variant "${unknown}" not found for flag "${ns}/${key}"`);
    });

    it('metadata: omitted leaves it, {} clears it, an object replaces it', async () => {
      const key = uniqueKey('upd-meta');
      expectStatus(await create({ key, name: 'M', metadata: { a: 1, b: 2 } }), 200);
      expect(expectStatus(await update(key, { name: 'M' }), 200).metadata).toEqual({ a: 1, b: 2 });
      expect(expectStatus(await get(key), 200).metadata).toEqual({ a: 1, b: 2 });

      const replaced = expectStatus(await update(key, { name: 'M', metadata: { c: 'x' } }), 200);
      expect(replaced.metadata).toEqual({ c: 'x' });
      expect(expectStatus(await get(key), 200).metadata).toEqual({ c: 'x' });

      const cleared = expectStatus(await update(key, { name: 'M', metadata: {} }), 200);
      expect(cleared).not.toHaveProperty('metadata');
      expect(expectStatus(await get(key), 200)).not.toHaveProperty('metadata');
    });

    it('rejects an empty name', async () => {
      const key = uniqueKey('upd-noname');
      expectStatus(await create({ key, name: 'N' }), 200);
      expectError(await update(key, { name: '' }), 400, 3, 'invalid field name: must not be empty');
    });

    it('answers 404 for a missing flag', async () => {
      const key = uniqueKey('upd-missing');
      expectError(await update(key, { name: 'X' }), 404, 5, `flag "${ns}/${key}" not found`);
    });
  });

  describe('delete', () => {
    it('deletes the flag with 200 {} and is idempotent', async () => {
      const key = uniqueKey('del');
      expectStatus(await create({ key, name: 'Del' }), 200);
      const res = await del(key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expectError(await get(key), 404, 5, `flag "${ns}/${key}" not found`);
      const again = await del(key);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({});
      const never = await del(uniqueKey('never-existed'));
      expect(never.status).toBe(200);
      expect(never.body).toEqual({});
    });
  });
});

describe('namespace resolution', () => {
  it('GET /api/v1/flags/{key} without namespaceKey reads `default`', async () => {
    expectError(await server.api.get('/api/v1/flags/foo'), 404, 5, 'flag "default/foo" not found');
    expectError(await server.api.get('/api/v1/flags/foo?namespaceKey='), 404, 5, 'flag "default/foo" not found');
  });

  it('creating a flag in a missing namespace is 404, in both families', async () => {
    expectError(await server.api.post('/api/v1/namespaces/x/flags', { key: 'k', name: 'K' }), 404, 5, 'namespace "x" not found');
    expectError(await server.api.post('/api/v1/flags', { key: 'k', name: 'K', namespaceKey: 'x' }), 404, 5, 'namespace "x" not found');
  });

  it('the same key may exist in two namespaces; each family reads its own', async () => {
    const key = uniqueKey('shared');
    expectStatus(await server.api.post('/api/v1/flags', { key, name: 'In default' }), 200);
    expectStatus(await server.api.post(`/api/v1/namespaces/${NS_A}/flags`, { key, name: 'In A' }), 200);
    expect(expectStatus(await server.api.get(`/api/v1/flags/${key}`), 200)).toMatchObject({ namespaceKey: 'default', name: 'In default' });
    expect(expectStatus(await server.api.get(`/api/v1/flags/${key}?namespaceKey=${NS_A}`), 200)).toMatchObject({ namespaceKey: NS_A, name: 'In A' });
    expect(expectStatus(await server.api.get(`/api/v1/namespaces/default/flags/${key}`), 200).name).toBe('In default');
    // Family A delete honours namespaceKey from the query: only the NS_A copy goes.
    expectStatus(await server.api.delete(`/api/v1/flags/${key}?namespaceKey=${NS_A}`), 200);
    expectError(await server.api.get(`/api/v1/namespaces/${NS_A}/flags/${key}`), 404, 5, `flag "${NS_A}/${key}" not found`);
    expectStatus(await server.api.get(`/api/v1/flags/${key}`), 200);
  });

  it('Family A PUT takes namespaceKey from the body', async () => {
    const key = uniqueKey('put-ns');
    expectStatus(await server.api.post(`/api/v1/namespaces/${NS_A}/flags`, { key, name: 'A' }), 200);
    expectError(await server.api.put(`/api/v1/flags/${key}`, { name: 'X' }), 404, 5, `flag "default/${key}" not found`);
    const updated = expectStatus(await server.api.put(`/api/v1/flags/${key}`, { name: 'X', namespaceKey: NS_A }), 200);
    expect(updated).toMatchObject({ key, name: 'X', namespaceKey: NS_A });
  });

  it('Family A POST ignores namespaceKey in the query (body routes read no query)', async () => {
    const key = uniqueKey('post-query');
    const flag = expectStatus(await server.api.post(`/api/v1/flags?namespaceKey=${NS_A}`, { key, name: 'Q' }), 200);
    expect(flag.namespaceKey).toBe('default');
    expectError(await server.api.get(`/api/v1/flags/${key}?namespaceKey=${NS_A}`), 404, 5, `flag "${NS_A}/${key}" not found`);
  });

  it('Family B: the path namespace wins over namespaceKey in the body', async () => {
    const key = uniqueKey('path-wins');
    const flag = expectStatus(await server.api.post(`/api/v1/namespaces/${NS_B}/flags`, { key, name: 'P', namespaceKey: NS_A }), 200);
    expect(flag.namespaceKey).toBe(NS_B);
    expectError(await server.api.get(`/api/v1/namespaces/${NS_A}/flags/${key}`), 404, 5, `flag "${NS_A}/${key}" not found`);
    const updated = expectStatus(await server.api.put(`/api/v1/namespaces/${NS_B}/flags/${key}`, { name: 'P2', namespaceKey: NS_A }), 200);
    expect(updated).toMatchObject({ namespaceKey: NS_B, name: 'P2' });
  });

  it('Family A list with namespaceKey lists only that namespace', async () => {
    const key = uniqueKey('only-a');
    expectStatus(await server.api.post('/api/v1/flags', { key, name: 'A', namespaceKey: NS_A }), 200);
    const inA = expectStatus(await server.api.get(`/api/v1/flags?namespaceKey=${NS_A}`), 200);
    const inB = expectStatus(await server.api.get(`/api/v1/namespaces/${NS_A}/flags`), 200);
    expect(inA).toEqual(inB);
    expect(inA.flags.map((f: { key: string }) => f.key)).toContain(key);
    const inDefault = expectStatus(await server.api.get('/api/v1/flags'), 200);
    expect(inDefault.flags.map((f: { key: string }) => f.key)).not.toContain(key);
  });
});
