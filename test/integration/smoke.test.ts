import { describe, expect, it } from 'vitest';
import { expectStatus, useServer } from '../support/server';

describe('server smoke', () => {
  const server = useServer();

  it('answers /health and creates a flag', async () => {
    expect(expectStatus(await server.api.get('/health'), 200)).toEqual({ status: 'SERVING' });
    const flag = expectStatus(await server.api.post('/api/v1/flags', { key: 'f', name: 'F' }), 200);
    expect(flag).toMatchObject({ key: 'f', name: 'F', enabled: false, namespaceKey: 'default', type: 'VARIANT_FLAG_TYPE' });
  });
});
