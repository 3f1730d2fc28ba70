import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../internal/core/json-depth';
import { fillTemplate, routeTemplates } from '../../support/route-templates';
import { expectStatus, useServer, type TestServer } from '../../support/server';

/**
 * JSON nested deeper than MAX_JSON_DEPTH (64) is refused with a 400 naming the limit before it
 * is parsed, on every route that reads a body (the fast lane included), and values inside a
 * request of acceptable depth cannot smuggle deep JSON to a recursive path either.
 */

const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** A body whose own object is one level, so its total depth is `depth + 1`. */
const bodyWith = (deep: string) => `{"namespaceKey":"default","key":"deep","name":"Deep","flagKey":"deep","entityId":"e","metadata":${deep}}`;

const DEPTH_MESSAGE = `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`;

async function send(server: TestServer, method: string, path: string, body: string) {
  const res = await fetch(server.url + path, { method, headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

describe('deeply nested JSON', () => {
  const server = useServer();

  it('every route that reads a body (collected from the app) refuses one level past the limit and 100,000 levels with a 400 naming the limit', async () => {
    // The bulk import routes read a Flipt document, not a JSON request: their bound (the API's
    // plus a document's own levels) and its message are tested in ext/import-route.test.ts.
    const routes = routeTemplates(server).filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && !r.url.endsWith('/import'));
    expect(routes.length).toBeGreaterThan(40);
    const wrong: string[] = [];
    for (const route of routes) {
      const path = fillTemplate(route.url, () => 'deep');
      for (const deep of [arrays(MAX_JSON_DEPTH), objects(MAX_JSON_DEPTH), arrays(100_000), objects(100_000)]) {
        const res = await send(server, route.method, path, bodyWith(deep));
        // OFREP answers with its own error body (naming the flag when the path does), as every OFREP error.
        const expected = path.startsWith('/ofrep/')
          ? { ...(route.params.length > 0 && { key: 'deep' }), errorCode: 'INVALID_CONTEXT', errorDetails: DEPTH_MESSAGE }
          : { code: 3, message: DEPTH_MESSAGE, details: [] };
        if (res.status !== 400 || JSON.stringify(res.body) !== JSON.stringify(expected)) wrong.push(`${route.method} ${path} (${deep.length} chars) → ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a body at the limit is taken as usual: flag metadata nested to the limit is stored and read back', async () => {
    const metadata = JSON.parse(`{"tree":${arrays(MAX_JSON_DEPTH - 2)}}`) as unknown;
    const created = expectStatus(await server.api.post('/api/v1/flags', { key: 'at-limit', name: 'At the limit', metadata }), 200);
    expect(created.metadata).toEqual(metadata);
    expect(expectStatus(await server.api.get('/api/v1/flags/at-limit'), 200).metadata).toEqual(metadata);
    // One more level is refused, and nothing was written.
    const res = await send(server, 'PUT', '/api/v1/flags/at-limit', JSON.stringify({ name: 'Deeper', metadata: { tree: [metadata] } }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 3, message: DEPTH_MESSAGE, details: [] });
    expect(expectStatus(await server.api.get('/api/v1/flags/at-limit'), 200)).toMatchObject({ name: 'At the limit', metadata });
  });

  it('an OFREP context nested to the limit is evaluated (its objects become JSON text)', async () => {
    expectStatus(await server.api.post('/api/v1/flags', { key: 'ofrep-deep', name: 'OFREP', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
    const context = `{"targetingKey":"u1","tree":${arrays(MAX_JSON_DEPTH - 2)}}`;
    const res = await send(server, 'POST', '/ofrep/v1/evaluate/flags/ofrep-deep', `{"context":${context}}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: 'ofrep-deep', value: true });
  });

  it('a variant attachment (JSON inside a string) deeper than the limit is refused, naming the field; at the limit it is kept', async () => {
    expectStatus(await server.api.post('/api/v1/flags', { key: 'attached', name: 'Attached' }), 200);
    for (const deep of [arrays(MAX_JSON_DEPTH + 1), objects(100_000)]) {
      const res = await send(server, 'POST', '/api/v1/flags/attached/variants', JSON.stringify({ key: 'deep', attachment: deep }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 3, message: `invalid field attachment: must not nest arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, details: [] });
    }
    const variant = expectStatus(await server.api.post('/api/v1/flags/attached/variants', { key: 'ok', attachment: arrays(MAX_JSON_DEPTH) }), 200);
    expect(variant.attachment).toBe(arrays(MAX_JSON_DEPTH));
    expect(expectStatus(await server.api.get('/api/v1/flags/attached'), 200).variants.map((v: { key: string }) => v.key)).toEqual(['ok']);
  });

  it('deep values elsewhere in a request of acceptable depth are refused by their field, never by a 500', async () => {
    // An evaluation context holds strings: a nested value is a type error, whatever its depth.
    const evaluation = await send(server, 'POST', '/evaluate/v1/variant', `{"flagKey":"x","entityId":"e","context":{"a":${arrays(MAX_JSON_DEPTH - 2)}}}`);
    expect(evaluation.status).toBe(400);
    expect(evaluation.body).toEqual({ code: 3, message: 'invalid field context.a: must be a string', details: [] });
    // A constraint's list value is JSON text too: a nested list is not a list of strings.
    expectStatus(await server.api.post('/api/v1/segments', { key: 'deep-seg', name: 'Deep' }), 200);
    const constraint = await send(
      server,
      'POST',
      '/api/v1/segments/deep-seg/constraints',
      JSON.stringify({ type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'isoneof', value: arrays(100_000) }),
    );
    expect(constraint.status).toBe(400);
    expect(constraint.body).toEqual({ code: 3, message: 'invalid value provided for property "p" of type string', details: [] });
    // Query strings are flat: bracketed keys are plain names, however many brackets.
    const query = await fetch(`${server.url}/api/v1/flags?${'a['.repeat(5000)}=1&limit=${'['.repeat(5000)}`);
    expect(query.status).toBe(400);
    expect(await query.json()).toEqual({ code: 3, message: 'invalid field limit: must be a 32-bit integer', details: [] });
  });
});
