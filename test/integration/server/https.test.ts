import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { credentials, status } from '@grpc/grpc-js';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient } from '../../support/grpc-client';
import { startServer, type TestServer } from '../../support/server';

/**
 * `server.protocol: https` as Flipt has it: the API over TLS on `server.https_port` with the
 * configured certificate and key, and the gRPC port with TLS too (health included); plaintext
 * is refused on both.
 */

const TLS_DIR = resolve(__dirname, '../../fixtures/tls');
const ca = readFileSync(resolve(TLS_DIR, 'cert.pem'));

describe('HTTPS (server.protocol: https)', () => {
  let server: TestServer;
  let agent: Agent;
  beforeAll(async () => {
    server = await startServer({
      PENNON_SERVER_PROTOCOL: 'https',
      PENNON_SERVER_HTTPS_PORT: '0',
      PENNON_SERVER_CERT_FILE: resolve(TLS_DIR, 'cert.pem'),
      PENNON_SERVER_CERT_KEY: resolve(TLS_DIR, 'key.pem'),
    });
    agent = new Agent({ connect: { ca } });
  });
  afterAll(async () => {
    await agent?.close();
    await server?.stop();
  });

  it('serves the API over TLS (HTTP/1.1), trusted with the certificate; plain HTTP gets no answer', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const call = async (method: 'GET' | 'POST', path: string, body?: object) => {
      const res = await request(`${server.url}${path}`, { method, dispatcher: agent, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
    };
    expect(await call('GET', '/health')).toEqual({ status: 200, body: { status: 'SERVING' } });
    expect((await call('POST', '/api/v1/flags', { key: 'tls', name: 'TLS', type: 'BOOLEAN_FLAG_TYPE', enabled: true })).status).toBe(200);
    expect((await call('POST', '/evaluate/v1/boolean', { flagKey: 'tls', entityId: 'e' })).body).toMatchObject({ enabled: true, flagKey: 'tls' });
    await expect(fetch(server.url.replace('https:', 'http:') + '/health')).rejects.toThrow();
    // Without the certificate to trust, the client refuses the server.
    await expect(request(`${server.url}/health`)).rejects.toThrow(/self[- ]signed|certificate/i);
  });

  it('serves gRPC over TLS with the same certificate; a plaintext client fails', async () => {
    const secure = new GrpcClient(server.service.grpcPort, null, { 'grpc.ssl_target_name_override': 'localhost' }, credentials.createSsl(ca));
    const plain = new GrpcClient(server.service.grpcPort);
    try {
      expect((await secure.call('flipt.evaluation.EvaluationService/Boolean', { flagKey: 'tls', entityId: 'e' })).enabled).toBe(true);
      expect((await plain.fails('flipt.Flipt/ListFlags', {})).code).toBe(status.UNAVAILABLE);
    } finally {
      secure.close();
      plain.close();
    }
  });
});
