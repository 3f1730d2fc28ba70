import { beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, useServer, type ApiResponse } from '../../support/server';

/** Variants in both route families (Flipt: `internal/server/flag.go`, `rpc/flipt/validation.go`, `internal/storage/sql/common/flag.go`). */

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VARIANT_FIELDS = ['id', 'flagKey', 'key', 'name', 'description', 'createdAt', 'updatedAt', 'attachment', 'namespaceKey'];

let seq = 0;
const uniqueKey = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

function expectError(res: ApiResponse, status: number, code: number, message: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toEqual({ code, message, details: [] });
}

interface Family {
  label: string;
  ns: string;
  base: string;
  query: string;
  body: Record<string, unknown>;
}

const NS_B = 'variants-b';
const NS_A = 'variants-a';
const FAMILIES: Family[] = [
  { label: `Family B (/api/v1/namespaces/${NS_B}/flags)`, ns: NS_B, base: `/api/v1/namespaces/${NS_B}/flags`, query: '', body: {} },
  { label: 'Family A (/api/v1/flags, default)', ns: 'default', base: '/api/v1/flags', query: '', body: {} },
  { label: `Family A (/api/v1/flags, namespaceKey=${NS_A})`, ns: NS_A, base: '/api/v1/flags', query: `?namespaceKey=${NS_A}`, body: { namespaceKey: NS_A } },
];

const server = useServer();
beforeAll(async () => {
  for (const key of [NS_B, NS_A]) expectStatus(await server.api.post('/api/v1/namespaces', { key, name: key }), 200);
});

describe.each(FAMILIES)('variants: $label', (family) => {
  const { ns } = family;
  const getFlag = (key: string) => server.api.get(`${family.base}/${key}${family.query}`);
  const createFlag = async (key: string) => expectStatus(await server.api.post(family.base, { ...family.body, key, name: key }), 200);
  const createVariant = (flagKey: string, body: Record<string, unknown>) =>
    server.api.post(`${family.base}/${flagKey}/variants`, { ...family.body, ...body });
  const updateVariant = (flagKey: string, id: string, body: Record<string, unknown>) =>
    server.api.put(`${family.base}/${flagKey}/variants/${id}`, { ...family.body, ...body });
  const deleteVariant = (flagKey: string, id: string) => server.api.delete(`${family.base}/${flagKey}/variants/${id}${family.query}`);

  it('creates a variant with a new UUID and every field, zero values included', async () => {
    const flagKey = uniqueKey('create');
    await createFlag(flagKey);
    const before = Date.now();
    const variant = expectStatus(await createVariant(flagKey, { key: 'blue' }), 200);
    expect(Object.keys(variant)).toEqual(VARIANT_FIELDS);
    expect(variant).toEqual({
      id: expect.stringMatching(UUID),
      flagKey,
      key: 'blue',
      name: '',
      description: '',
      createdAt: expect.stringMatching(RFC3339_UTC),
      updatedAt: expect.stringMatching(RFC3339_UTC),
      attachment: '',
      namespaceKey: ns,
    });
    expect(Date.parse(variant.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    const flag = expectStatus(await getFlag(flagKey), 200);
    expect(flag.variants).toEqual([variant]);
  });

  it('stores name, description and a compacted attachment; the flag lists variants in creation order', async () => {
    const flagKey = uniqueKey('full');
    await createFlag(flagKey);
    const z = expectStatus(
      await createVariant(flagKey, { key: 'z', name: 'Zed', description: 'last letter', attachment: '{ "x": 1 }' }),
      200,
    );
    expect(z).toMatchObject({ key: 'z', name: 'Zed', description: 'last letter', attachment: '{"x":1}' });
    const a = expectStatus(await createVariant(flagKey, { key: 'a', attachment: '[1, 2, {"k": "v w"}]\n' }), 200);
    expect(a.attachment).toBe('[1,2,{"k":"v w"}]');
    const flag = expectStatus(await getFlag(flagKey), 200);
    expect(flag.variants.map((v: { key: string }) => v.key)).toEqual(['z', 'a']);
    expect(flag.variants[0]).toEqual(z);
    expect(flag.variants[1].attachment).toBe('[1,2,{"k":"v w"}]');
  });

  it('rejects an attachment that is not JSON', async () => {
    const flagKey = uniqueKey('bad-attach');
    await createFlag(flagKey);
    expectError(await createVariant(flagKey, { key: 'v', attachment: '{not json' }), 400, 3, 'invalid field attachment: must be a json string');
    expectError(await createVariant(flagKey, { key: 'v', attachment: 'plain text' }), 400, 3, 'invalid field attachment: must be a json string');
    expect(expectStatus(await getFlag(flagKey), 200).variants).toEqual([]);
  });

  it('rejects an empty key', async () => {
    const flagKey = uniqueKey('nokey');
    await createFlag(flagKey);
    expectError(await createVariant(flagKey, { name: 'No key' }), 400, 3, 'invalid field key: must not be empty');
  });

  it('accepts any non-empty variant key (no key pattern)', async () => {
    const flagKey = uniqueKey('anykey');
    await createFlag(flagKey);
    expect(expectStatus(await createVariant(flagKey, { key: 'with space/and.dot' }), 200).key).toBe('with space/and.dot');
  });

  it('rejects a duplicate key on the same flag but allows it on another flag', async () => {
    const flagKey = uniqueKey('dup');
    const other = uniqueKey('dup-other');
    await createFlag(flagKey);
    await createFlag(other);
    expectStatus(await createVariant(flagKey, { key: 'k' }), 200);
    expectError(await createVariant(flagKey, { key: 'k' }), 400, 3, `variant "k" is not unique for flag "${ns}/${flagKey}"`);
    expectStatus(await createVariant(other, { key: 'k' }), 200);
  });

  it('answers 404 when the flag is missing', async () => {
    const flagKey = uniqueKey('missing-flag');
    expectError(await createVariant(flagKey, { key: 'k' }), 404, 5, `flag "${ns}/${flagKey}" not found`);
  });

  it('updates a variant in place: same id and createdAt, fields replaced', async () => {
    const flagKey = uniqueKey('upd');
    await createFlag(flagKey);
    const created = expectStatus(await createVariant(flagKey, { key: 'k', name: 'N', description: 'D', attachment: '{"a":1}' }), 200);
    const updated = expectStatus(
      await updateVariant(flagKey, created.id, { key: 'k2', name: 'N2', attachment: '{ "b" : [ 2 ] }' }),
      200,
    );
    expect(Object.keys(updated)).toEqual(VARIANT_FIELDS);
    expect(updated).toMatchObject({
      id: created.id,
      flagKey,
      key: 'k2',
      name: 'N2',
      description: '',
      attachment: '{"b":[2]}',
      namespaceKey: ns,
      createdAt: created.createdAt,
    });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    expect(expectStatus(await getFlag(flagKey), 200).variants).toEqual([updated]);
  });

  it('update uses the id from the path', async () => {
    const flagKey = uniqueKey('upd-path');
    await createFlag(flagKey);
    const v = expectStatus(await createVariant(flagKey, { key: 'k' }), 200);
    const updated = expectStatus(await updateVariant(flagKey, v.id, { id: 'not-this-one', key: 'k', name: 'Named' }), 200);
    expect(updated).toMatchObject({ id: v.id, name: 'Named' });
  });

  it('update rejects an empty key, a bad attachment and a key taken by a sibling', async () => {
    const flagKey = uniqueKey('upd-bad');
    await createFlag(flagKey);
    const one = expectStatus(await createVariant(flagKey, { key: 'one' }), 200);
    expectStatus(await createVariant(flagKey, { key: 'two' }), 200);
    expectError(await updateVariant(flagKey, one.id, { name: 'x' }), 400, 3, 'invalid field key: must not be empty');
    expectError(await updateVariant(flagKey, one.id, { key: 'one', attachment: '{' }), 400, 3, 'invalid field attachment: must be a json string');
    expectError(await updateVariant(flagKey, one.id, { key: 'two' }), 400, 3, `variant "two" is not unique for flag "${ns}/${flagKey}"`);
  });

  it('update of a missing variant is 404 naming the key from the body', async () => {
    const flagKey = uniqueKey('upd-missing');
    await createFlag(flagKey);
    const id = '00000000-0000-4000-8000-000000000001';
    expectError(await updateVariant(flagKey, id, { key: 'ghost' }), 404, 5, 'variant "ghost" not found');
  });

  it("update through another flag's path is 404", async () => {
    const flagKey = uniqueKey('upd-owner');
    const other = uniqueKey('upd-stranger');
    await createFlag(flagKey);
    await createFlag(other);
    const v = expectStatus(await createVariant(flagKey, { key: 'mine' }), 200);
    expectError(await updateVariant(other, v.id, { key: 'mine' }), 404, 5, 'variant "mine" not found');
  });

  it('deletes a variant with 200 {}; deleting again is still 200 {}', async () => {
    const flagKey = uniqueKey('del');
    await createFlag(flagKey);
    const keep = expectStatus(await createVariant(flagKey, { key: 'keep' }), 200);
    const drop = expectStatus(await createVariant(flagKey, { key: 'drop' }), 200);
    const res = await deleteVariant(flagKey, drop.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(expectStatus(await getFlag(flagKey), 200).variants).toEqual([keep]);
    const again = await deleteVariant(flagKey, drop.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({});
  });

  it('deleting the default variant clears defaultVariant', async () => {
    const flagKey = uniqueKey('del-default');
    await createFlag(flagKey);
    const v = expectStatus(await createVariant(flagKey, { key: 'def' }), 200);
    const withDefault = expectStatus(
      await server.api.put(`${family.base}/${flagKey}`, { ...family.body, name: flagKey, defaultVariantId: v.id }),
      200,
    );
    expect(withDefault.defaultVariant).toEqual(v);
    expectStatus(await deleteVariant(flagKey, v.id), 200);
    const flag = expectStatus(await getFlag(flagKey), 200);
    expect(flag.variants).toEqual([]);
    expect(flag).not.toHaveProperty('defaultVariant');
  });

  it('deleting a flag removes its variants', async () => {
    const flagKey = uniqueKey('del-flag');
    await createFlag(flagKey);
    const v = expectStatus(await createVariant(flagKey, { key: 'v1' }), 200);
    expectStatus(await createVariant(flagKey, { key: 'v2' }), 200);
    expectStatus(await server.api.delete(`${family.base}/${flagKey}${family.query}`), 200);
    const recreated = await createFlag(flagKey);
    expect(recreated.variants).toEqual([]);
    expect(expectStatus(await getFlag(flagKey), 200).variants).toEqual([]);
    // The old variant is gone for good: it cannot become the default of the new flag.
    expectError(
      await server.api.put(`${family.base}/${flagKey}`, { ...family.body, name: flagKey, defaultVariantId: v.id }),
      400,
      3,
      `variant "${v.id}" not found for flag "${ns}/${flagKey}"`,
    );
    // The same variant key can be created again.
    expectStatus(await createVariant(flagKey, { key: 'v1' }), 200);
  });
});

describe('variant attachment size', () => {
  /** A JSON object attachment of exactly `bytes` bytes. */
  const attachmentOf = (bytes: number) => `{"a":"${'a'.repeat(bytes - 8)}"}`;

  it('accepts 1000 KB and rejects one byte more', async () => {
    const base = `/api/v1/namespaces/${NS_B}/flags`;
    const flagKey = uniqueKey('size');
    expectStatus(await server.api.post(base, { key: flagKey, name: 'Size' }), 200);
    const limit = 1000 * 1024;
    expect(attachmentOf(limit)).toHaveLength(limit);
    expectError(
      await server.api.post(`${base}/${flagKey}/variants`, { key: 'big', attachment: attachmentOf(limit + 1) }),
      400,
      3,
      'invalid field attachment: must be less than 1000 KB',
    );
    const ok = expectStatus(await server.api.post(`${base}/${flagKey}/variants`, { key: 'big', attachment: attachmentOf(limit) }), 200);
    expect(ok.attachment).toHaveLength(limit);
  });
});
