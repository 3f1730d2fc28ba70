import { beforeEach, describe, expect, it } from 'vitest';
import { expectStatus, type ApiResponse, useServer } from '../../support/server';

/**
 * Pennon's bulk import route against a real server: `POST /api/v1/import` (any namespaces,
 * `drop`) and `POST /api/v1/namespaces/{ns}/import`, Flipt's document stream as the body, the
 * counts `pennon flag import` prints as the answer; options, namespaces, warnings and the same
 * 400s (with document and line) as an in-process import.
 */

const STREAM = [
  'version: "1.4"',
  'namespace: {key: shop, name: Shop}',
  'flags:',
  '- key: checkout',
  '  name: Checkout',
  '  enabled: true',
  '  variants:',
  '  - {key: blue}',
  '  - {key: green, default: true}',
  '  rules:',
  '  - segment: everyone',
  '    distributions:',
  '    - {variant: blue, rollout: 100}',
  'segments:',
  '- {key: everyone, name: Everyone}',
  '---',
  'flags:',
  '- {key: dark, name: Dark, type: BOOLEAN_FLAG_TYPE, enabled: true}',
  '',
].join('\n');

describe('the bulk import route', () => {
  const server = useServer();
  // Every test from an empty `default` namespace (the route's own drop, checked below).
  beforeEach(async () => {
    expectStatus(await importing('/api/v1/import?drop=true', ''), 200);
  });

  const importing = (path: string, body: string, type = 'application/yaml'): Promise<ApiResponse> =>
    server.api.request('POST', path, body, { 'content-type': type });
  const flagKeys = async (ns: string) => expectStatus(await server.api.get(`/api/v1/namespaces/${ns}/flags`), 200).flags.map((f: { key: string }) => f.key);

  it('imports a multi-namespace YAML stream in one request, answering the counts; evaluations see it at once', async () => {
    const res = await importing('/api/v1/import', STREAM);
    expect(expectStatus(res, 200)).toEqual({
      created: { namespaces: 1, flags: 2, variants: 2, segments: 1, constraints: 0, rules: 1, distributions: 1, rollouts: 0 },
      skipped: { flags: [], segments: [] },
      dropped: [],
      warnings: [],
    });
    expect(expectStatus(await server.api.get('/api/v1/namespaces/shop'), 200).name).toBe('Shop');
    expect(expectStatus(await server.api.get('/api/v1/namespaces/shop/flags/checkout'), 200).defaultVariant.key).toBe('green');
    const variant = expectStatus(await server.api.post('/evaluate/v1/variant', { namespaceKey: 'shop', flagKey: 'checkout', entityId: 'u1' }), 200);
    expect([variant.variantKey, variant.reason]).toEqual(['blue', 'MATCH_EVALUATION_REASON']);
    expect(expectStatus(await server.api.post('/evaluate/v1/boolean', { flagKey: 'dark', entityId: 'u1' }), 200).enabled).toBe(true);
  });

  it('reads JSON by ?format=json or by the Content-Type, one object or one per line', async () => {
    const lines = '{"namespace": "a", "flags": [{"key": "f1", "name": "F1"}]}\n{"namespace": "b", "flags": [{"key": "f2", "name": "F2"}]}\n';
    expect(expectStatus(await importing('/api/v1/import?format=json', lines, 'text/plain'), 200).created.flags).toBe(2);
    expect(expectStatus(await importing('/api/v1/import', '{"namespace": "c", "segments": [{"key": "s", "name": "S"}]}', 'application/json'), 200).created.segments).toBe(1);
    expect([await flagKeys('a'), await flagKeys('b')]).toEqual([['f1'], ['f2']]);
    const bad = await importing('/api/v1/import?format=xml', lines);
    expect([bad.status, bad.body.message]).toEqual([400, 'invalid field format: must be yaml or json']);
  });

  it('puts documents without a namespace into the one named in the path, creating it, and refuses a document for another', async () => {
    const res = await importing('/api/v1/namespaces/team/import', 'flags:\n- key: f\n  name: F\n  enabeld: true\n---\nnamespace: team\nsegments:\n- {key: s, name: S}\n');
    expect(expectStatus(res, 200)).toMatchObject({
      created: { namespaces: 1, flags: 1, segments: 1 },
      warnings: ['unknown key "enabeld" ignored (document 1, namespace "team", flag "f", field enabeld, line 4)'],
    });
    expect(await flagKeys('team')).toEqual(['f']);
    expect(await flagKeys('default')).toEqual([]);

    const other = await importing('/api/v1/namespaces/team/import', 'flags:\n- {key: g, name: G}\n---\nnamespace: {key: shop}\nflags:\n- {key: h, name: H}\n');
    expect([other.status, other.body]).toEqual([
      400,
      { code: 3, message: 'the document is for namespace "shop", not "team", the namespace imported into (document 2, field namespace, line 4)', details: [] },
    ]);
    expect(await flagKeys('team')).toEqual(['f']);
  });

  it('skipExisting leaves what exists; without it, what exists is a 400 naming it, and nothing is written', async () => {
    expectStatus(await importing('/api/v1/import', STREAM), 200);
    const again = await importing('/api/v1/import', `${STREAM}---\nnamespace: fresh\n`);
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('flag "shop/checkout" is not unique (document 1, namespace "shop", flag "checkout", field key, line 4)');
    expect((await server.api.get('/api/v1/namespaces/fresh')).status).toBe(404);

    const skipping = await importing('/api/v1/import?skipExisting=true', `${STREAM}---\nnamespace: fresh\nflags:\n- {key: new, name: New}\n`);
    expect(expectStatus(skipping, 200)).toMatchObject({
      created: { namespaces: 1, flags: 1, segments: 0 },
      skipped: { flags: ['shop/checkout', 'default/dark'], segments: ['shop/everyone'] },
    });
    expect(await flagKeys('fresh')).toEqual(['new']);
  });

  it('drop deletes every namespace first and re-creates an empty default; it is refused on a one-namespace import', async () => {
    expectStatus(await importing('/api/v1/import', STREAM), 200);
    const dropped = expectStatus(await importing('/api/v1/import?drop=true', 'flags:\n- {key: only, name: Only}\n'), 200);
    expect(dropped.dropped.sort()).toEqual(['default', 'shop']);
    const namespaces = expectStatus(await server.api.get('/api/v1/namespaces'), 200).namespaces.map((n: { key: string; name: string }) => [n.key, n.name]);
    expect(namespaces).toEqual([['default', 'Default']]);
    expect(await flagKeys('default')).toEqual(['only']);

    const refused = await importing('/api/v1/namespaces/default/import?drop=true', 'flags: []\n');
    expect([refused.status, refused.body.message]).toEqual([400, 'invalid field drop: deletes every namespace, so it is for POST /api/v1/import only, not an import into one namespace']);
    expect(await flagKeys('default')).toEqual(['only']);
  });

  it('answers a parse error with the same message as an in-process import: where, and an excerpt', async () => {
    const res = await importing('/api/v1/import', 'flags:\n- key: a\n  name: [unclosed\n');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^unmarshalling document: yaml: [^\n]+ \(document 1, line \d+\)\n {2}\d+ \| [^\n]+\n {2} +\| +\^$/);
    const invalid = await importing('/api/v1/import', 'flags:\n- key: a\n  name: A\n  rules:\n  - segment: nowhere\n');
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toMatch(/nowhere.*\(document 1, namespace "default", flag "a", field rules\[0\]\.segment, line 5\)$/);
  });

  it('answers a document nested too deeply with a 400, never a 500', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const json = await importing('/api/v1/import?format=json', `{"flags": [{"key": "f", "name": "F", "variants": [{"key": "v", "attachment": ${deep}}]}]}`);
    expect([json.status, json.body.message]).toEqual([400, 'unmarshalling document: json: the document nests more than 72 levels deep (document 1, line 1)']);
    const yaml = await importing('/api/v1/import', `flags:\n- key: f\n  name: F\n  variants:\n  - key: v\n    attachment: ${deep}\n`);
    expect(yaml.status).toBe(400);
    expect(await flagKeys('default')).toEqual([]);
  });

  it('takes a stream larger than the API\'s body limit (server.max_body_bytes)', async () => {
    const flags = Array.from({ length: 12_000 }, (_, i) => `- key: flag_${i}\n  name: Flag number ${i} of a large import\n  description: ${'x'.repeat(40)}`);
    const body = `flags:\n${flags.join('\n')}\n`;
    expect(body.length).toBeGreaterThan(server.config.server.max_body_bytes);
    expect(expectStatus(await importing('/api/v1/import', body), 200).created.flags).toBe(12_000);
  }, 60_000);
});
