import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect, type ClientHttp2Session } from 'node:http2';
import { resolve } from 'node:path';
import { credentials, status } from '@grpc/grpc-js';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient } from '../../support/grpc-client';
import { startServer, type TestServer } from '../../support/server';

/**
 * `server.protocol: https` as Flipt has it: the API over TLS on `server.https_port` with the
 * configured certificate and key — HTTP/2 and HTTP/1.1, chosen by ALPN — and the gRPC port with
 * TLS too (health included); plaintext is refused on both. A drain lets an HTTP/2 request in
 * flight finish.
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

  it('speaks HTTP/2 over TLS to a client that offers it: management, the evaluation fast lane, errors', async () => {
    const session = connect(server.url, { ca });
    try {
      const h2 = (method: string, path: string, body?: object) =>
        new Promise<{ status: number; body: Record<string, unknown> }>((done, fail) => {
          const stream = session.request({ ':method': method, ':path': path, 'content-type': 'application/json' });
          let status = 0;
          let text = '';
          stream.on('response', (headers) => (status = Number(headers[':status'])));
          stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
          stream.on('end', () => done({ status, body: JSON.parse(text) as Record<string, unknown> }));
          stream.on('error', fail);
          stream.end(body && JSON.stringify(body));
        });
      expect(await h2('GET', '/health')).toEqual({ status: 200, body: { status: 'SERVING' } });
      expect((await h2('POST', '/api/v1/flags', { key: 'h2', name: 'H2', type: 'BOOLEAN_FLAG_TYPE', enabled: true })).status).toBe(200);
      // Concurrent streams on the one connection.
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => h2('POST', '/evaluate/v1/boolean', { flagKey: 'h2', entityId: `e${i}` })));
      expect(answers.every((a) => a.status === 200 && a.body.enabled === true)).toBe(true);
      expect(await h2('GET', '/api/v1/flags/missing')).toMatchObject({ status: 404, body: { code: 5 } });
      expect((await h2('POST', '/evaluate/v1/variant', { flagKey: 'x'.repeat(10), entityId: 'e', context: { big: 'y'.repeat(2 * 1024 * 1024) } })).status).toBe(413);
      // The connection outlives the refused stream.
      expect((await h2('GET', '/health')).status).toBe(200);
    } finally {
      session.close();
    }
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

describe('HTTPS drain', () => {
  it('stop() lets an HTTP/2 request in flight finish, then closes the connection', async () => {
    const server = await startServer({
      PENNON_SERVER_PROTOCOL: 'https',
      PENNON_SERVER_HTTPS_PORT: '0',
      PENNON_SERVER_CERT_FILE: resolve(TLS_DIR, 'cert.pem'),
      PENNON_SERVER_CERT_KEY: resolve(TLS_DIR, 'key.pem'),
    });
    let session: ClientHttp2Session | undefined;
    try {
      session = connect(server.url, { ca });
      await once(session, 'connect');
      const body = JSON.stringify({ key: 'late', name: 'Late' });
      const stream = session.request({ ':method': 'POST', ':path': '/api/v1/flags', 'content-type': 'application/json', 'content-length': String(body.length) });
      let status = 0;
      stream.on('response', (headers) => (status = Number(headers[':status'])));
      const ended = once(stream, 'end');
      stream.resume();
      stream.write(body.slice(0, 5));
      // A PING is answered after the frames before it are read: the request is in flight.
      await new Promise<void>((done, fail) => session!.ping((err) => (err ? fail(err) : done())));
      const closed = once(session, 'close');
      const stopping = server.stop();
      stream.end(body.slice(5));
      await ended;
      expect(status).toBe(200);
      expect(await stopping).toEqual({ cut: 0 });
      // The server closed the connection once its last stream was answered.
      await closed;
    } finally {
      session?.destroy();
    }
  });
});
