import { beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, useServer } from '../../support/server';

describe('?pretty output', () => {
  const server = useServer();
  beforeAll(async () => {
    expectStatus(await server.api.post('/api/v1/flags', { key: 'pretty-flag', name: 'Pretty' }), 200);
  });

  it('indents and drops zero values with ?pretty', async () => {
    const res = await server.api.get('/api/v1/flags/pretty-flag?pretty');
    expect(res.status).toBe(200);
    expect(res.text).toContain('\n  "key": "pretty-flag"');
    expect(res.body).not.toHaveProperty('description');
    expect(res.body).not.toHaveProperty('enabled');
    expect(res.body).not.toHaveProperty('variants');
    expect(res.body).toMatchObject({ key: 'pretty-flag', name: 'Pretty', type: 'VARIANT_FLAG_TYPE' });
  });

  it('does the same for Accept: application/json+pretty', async () => {
    const res = await server.api.request('GET', '/api/v1/flags/pretty-flag', undefined, { accept: 'application/json+pretty' });
    expect(res.text.startsWith('{\n')).toBe(true);
    expect(res.body).not.toHaveProperty('enabled');
  });

  it('keeps zero values in normal output', async () => {
    const res = await server.api.get('/api/v1/flags/pretty-flag');
    expect(res.text.startsWith('{"key"')).toBe(true);
    expect(res.body).toMatchObject({ description: '', enabled: false, variants: [] });
  });
});

describe('both spellings of one field', () => {
  const server = useServer();

  it('refuses camelCase and snake_case of the same field together, naming it', async () => {
    const res = await server.api.post('/api/v1/flags', { key: 'twice', name: 'Twice', namespaceKey: 'default', namespace_key: 'other' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('invalid field namespaceKey: given twice (namespaceKey and namespace_key)');
    const evaluation = await server.api.post('/evaluate/v1/variant', { flagKey: 'x', namespaceKey: null, namespace_key: 'default' });
    expect(evaluation.status).toBe(400);
    expect(evaluation.body.message).toBe('invalid field namespaceKey: given twice (namespaceKey and namespace_key)');
  });
});
