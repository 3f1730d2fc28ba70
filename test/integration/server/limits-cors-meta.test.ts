import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { expectStatus, startServer, useServer, type TestServer } from '../../support/server';

/** Request limits, CORS and /meta/config over a real server. */

/** Sends raw bytes and returns the first response line (what a broken client would see). */
function raw(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let got = '';
    socket.on('data', (d) => {
      got += d.toString();
      if (got.includes('\r\n')) {
        socket.destroy();
        resolve(got.split('\r\n')[0]);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(got.split('\r\n')[0]));
  });
}

describe('request limits', () => {
  const server = useServer({ PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'secret-bootstrap' });

  const big = JSON.stringify({ key: 'big', name: 'x'.repeat(6 * 1024 * 1024) });

  it('answers a 6 MiB body with 413 and Flipt’s error body, on the API and on the evaluation fast lane', async () => {
    for (const path of ['/api/v1/flags', '/evaluate/v1/variant', '/evaluate/v1/batch']) {
      const res = await server.api.post(path, big);
      expect(res.status, path).toBe(413);
      expect(res.body, path).toMatchObject({ code: 8, message: expect.any(String) });
    }
    expect((await server.api.get('/api/v1/flags/big')).status).toBe(404); // nothing written
  });

  it('answers malformed and oversized headers with 4xx and keeps serving', async () => {
    expect(await raw(server.url, 'GET /health HTTP/1.1\r\nHost: x\r\nThis is not a header\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await raw(server.url, 'GARBAGE\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await raw(server.url, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431/);
    expectStatus(await server.api.get('/health'), 200);
  });

  it('takes its body limit from server.max_body_bytes', async () => {
    const small = await startServer({ PENNON_SERVER_MAX_BODY_BYTES: '2048' });
    try {
      expect((await small.api.post('/api/v1/flags', { key: 'f', name: 'x'.repeat(4096) })).status).toBe(413);
      expect((await small.api.post('/evaluate/v1/variant', { flagKey: 'f', entityId: 'x'.repeat(4096) })).status).toBe(413);
      expectStatus(await small.api.post('/api/v1/flags', { key: 'f', name: 'fits' }), 200);
    } finally {
      await small.stop();
    }
  });

  it('shows the configuration on /meta/config as Flipt does: Go field names, no secrets, durations in ns', async () => {
    const res = await server.api.get('/meta/config');
    expect(res.status).toBe(200);
    const config = res.body;
    expect(config.server).toMatchObject({ httpPort: 0, grpcPort: expect.any(Number), shutdownTimeout: 5_000_000_000, maxBodyBytes: 1048576 });
    expect(config.db.url).toBeUndefined(); // a secret: left out
    expect(config.db).toMatchObject({ maxIdleConn: 2, preparedStatementsEnabled: true });
    expect(config.authentication.methods.token).toMatchObject({ enabled: true, cleanup: { interval: 3_600_000_000_000 } });
    expect(config.authentication.methods.token.bootstrap.token).toBeUndefined();
    expect(res.text).not.toContain('secret-bootstrap');
    expect(res.text).not.toContain(server.dir);
  });
});

describe('CORS', () => {
  const preflight = (server: TestServer, origin: string) =>
    fetch(`${server.url}/evaluate/v1/variant`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-flipt-namespace' },
    });
  const evaluate = (server: TestServer, origin?: string) =>
    fetch(`${server.url}/evaluate/v1/variant`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(origin && { origin }) },
      body: JSON.stringify({ flagKey: 'f', entityId: 'e' }),
    });

  it('is off by default', async () => {
    const server = await startServer();
    try {
      const res = await evaluate(server, 'https://app.example');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await server.stop();
    }
  });

  it('with cors.enabled and Flipt’s defaults: any origin, Flipt’s headers, on the fast lane’s routes too', async () => {
    const server = await startServer({ PENNON_CORS_ENABLED: 'true' });
    try {
      const pre = await preflight(server, 'https://app.example');
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      expect(pre.headers.get('access-control-allow-headers')).toContain('X-Flipt-Namespace');
      expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
      expect(pre.headers.get('access-control-max-age')).toBe('300');
      const res = await evaluate(server, 'https://app.example');
      expect(res.status).toBe(404); // no such flag — but the browser may read the answer
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-expose-headers')).toBe('Link');
      const serverToServer = await evaluate(server);
      expect(serverToServer.status).toBe(404);
      expect(serverToServer.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await server.stop();
    }
  });

  it('with cors.allowed_origins: only those origins are allowed', async () => {
    const server = await startServer({ PENNON_CORS_ENABLED: 'true', PENNON_CORS_ALLOWED_ORIGINS: 'https://a.example https://b.example' });
    try {
      expect((await evaluate(server, 'https://b.example')).headers.get('access-control-allow-origin')).toBe('https://b.example');
      expect((await evaluate(server, 'https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
      expect((await preflight(server, 'https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await server.stop();
    }
  });
});
