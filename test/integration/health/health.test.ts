import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../support/cli';
import { holdRequest } from '../../support/held-request';
import { startServer, type TestServer } from '../../support/server';
import { HealthClient } from '../../support/grpc-health-client';

/**
 * Health over HTTP and over the gRPC health protocol (a real @grpc/grpc-js client), in every
 * state that needs no external database: serving, starting (a database that refuses
 * connections), draining (a request held in flight across stop()). The store-down state,
 * which needs a database to cut, is in postgres-health.test.ts.
 */

const clients: HealthClient[] = [];
const grpcClient = (port: number) => {
  const client = new HealthClient(port);
  clients.push(client);
  return client;
};
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

describe('health while serving', () => {
  let server: TestServer;
  afterEach(async () => server?.stop());

  it('HTTP 200 SERVING, gRPC Check SERVING for "", flipt.Flipt and pennon; unknown names are NOT_FOUND', async () => {
    server = await startServer();
    expect(server.service.grpcPort).toBeGreaterThan(0);
    const http = await server.api.get('/health');
    expect([http.status, http.body]).toEqual([200, { status: 'SERVING' }]);
    expect((await server.api.get('/health?service=flipt.Flipt')).status).toBe(200);
    const unknown = await server.api.get('/health?service=nope');
    expect([unknown.status, unknown.body]).toEqual([404, { code: 5, message: 'unknown service', details: [] }]);
    // Answered as every other error is (internal/server/errors.ts): with its request id.
    const missing = await server.api.get('/api/v1/flags/nope');
    expect(unknown.headers.get('x-request-id')).toMatch(/\S/);
    expect(unknown.headers.get('content-type')).toBe(missing.headers.get('content-type'));

    const grpc = grpcClient(server.service.grpcPort);
    expect(await grpc.check('')).toBe('SERVING');
    expect(await grpc.check('flipt.Flipt')).toBe('SERVING');
    expect(await grpc.check('pennon')).toBe('SERVING');
    expect(await grpc.check('flipt.Nope')).toBe('code:5'); // NOT_FOUND, as the protocol says

    // Watch on an unknown name: SERVICE_UNKNOWN, stream kept open (the protocol's rule).
    const unknownWatch = grpc.watch('flipt.Nope');
    await unknownWatch.until('SERVICE_UNKNOWN');
    unknownWatch.cancel();
  });

  it('is public even when authentication is required', async () => {
    server = await startServer({ PENNON_AUTHENTICATION_REQUIRED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true' });
    expect((await server.api.get('/api/v1/flags')).status).toBe(401);
    expect((await server.api.get('/health')).status).toBe(200);
    expect(await grpcClient(server.service.grpcPort).check('')).toBe('SERVING');
  });

  it('refuses to start on a gRPC port in use, naming it, and leaves nothing listening', async () => {
    const blocker = await startServer();
    try {
      const taken = String(blocker.service.grpcPort);
      await expect(startServer({ PENNON_SERVER_GRPC_PORT: taken })).rejects.toThrow(new RegExp(`server\\.grpc_port ${taken} on 127\\.0\\.0\\.1 is in use`));
      // An HTTP port in use closes the gRPC server it had opened: the port is free again.
      const grpcPort = await freePort();
      const httpTaken = new URL(blocker.url).port;
      await expect(startServer({ PENNON_SERVER_HTTP_PORT: httpTaken, PENNON_SERVER_GRPC_PORT: String(grpcPort) })).rejects.toThrow(/server\.http_port .* in use \(EADDRINUSE\)/);
      server = await startServer({ PENNON_SERVER_GRPC_PORT: String(grpcPort) });
      expect(server.service.grpcPort).toBe(grpcPort);
    } finally {
      await blocker.stop();
    }
  });
});

describe('health while starting', () => {
  it('answers NOT_SERVING on HTTP and gRPC while the database refuses connections, and stops cleanly when asked', async () => {
    const [httpPort, grpcPort, deadPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const abort = new AbortController();
    const starting = startServer(
      {
        PENNON_SERVER_HOST: '127.0.0.1',
        PENNON_SERVER_HTTP_PORT: String(httpPort),
        PENNON_SERVER_GRPC_PORT: String(grpcPort),
        PENNON_DB_URL: `postgres://postgres@127.0.0.1:${deadPort}/pennon`, // nothing listens there
      },
      { signal: abort.signal },
    );
    starting.catch(() => undefined);

    const grpc = grpcClient(grpcPort);
    const watch = grpc.watch('');
    await watch.until('NOT_SERVING');
    // The HTTP listener opens before the database is tried; wait for the first refusal to show.
    let status = 0;
    let body: { status?: string; problems?: string[] } = {};
    for (let i = 0; (body.problems?.length ?? 0) < 2 && i < 200; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 20));
      const res = await fetch(`http://127.0.0.1:${httpPort}/health`).catch(() => null);
      if (res) [status, body] = [res.status, (await res.json()) as typeof body];
    }
    expect(status).toBe(503);
    expect(body.status).toBe('NOT_SERVING');
    expect(body.problems).toEqual(['starting', expect.stringMatching(/^database unavailable \(ECONNREFUSED\) since .*: waiting for it$/)]);
    // Everything else: Flipt's Unavailable until ready.
    const api = await fetch(`http://127.0.0.1:${httpPort}/api/v1/namespaces`);
    expect([api.status, await api.json()]).toEqual([503, { code: 14, message: 'the server is starting', details: [] }]);
    // Written by errors.ts, as every error answer is.
    expect(api.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await grpc.check('')).toBe('NOT_SERVING');
    expect(watch.statuses).toEqual(['NOT_SERVING']);

    abort.abort();
    await expect(starting).rejects.toThrow(/start-up cancelled/);
    expect(await watch.ended).toBe(0); // ended by the server, not cut
    await expect(fetch(`http://127.0.0.1:${httpPort}/health`)).rejects.toThrow();
  });
});

describe('health while draining', () => {
  it('turns NOT_SERVING at once on stop(), finishes the request in flight, answers a pipelined /health with 503, refuses new connections', async () => {
    const server = await startServer({ PENNON_SERVER_SHUTDOWN_TIMEOUT: '5s' });
    const port = Number(new URL(server.url).port);
    const grpc = grpcClient(server.service.grpcPort);
    const watch = grpc.watch('');
    await watch.until('SERVING');

    // A request in flight: dispatched by the server, part of its body sent, before stop().
    const body = JSON.stringify({ key: 'inflight', name: 'In flight' });
    const conn = await holdRequest(port, `POST /api/v1/flags HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}`, body.slice(0, 10));

    const stopAt = performance.now();
    const stopped = server.stop();
    await watch.until('NOT_SERVING');
    const toNotServing = performance.now() - stopAt;
    expect(await grpc.check('')).toBe('NOT_SERVING'); // the gRPC server still answers while HTTP drains
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow(); // the listener is closed

    // The rest of the body, and a /health pipelined behind it on the same connection.
    conn.send(`${body.slice(10)}GET /health HTTP/1.1\r\nHost: x\r\n\r\n`);
    const [first, second] = (await conn.closed).split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toContain('"key":"inflight"');
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second.slice(second.indexOf('\r\n\r\n') + 4)).toBe(JSON.stringify({ status: 'NOT_SERVING', problems: ['shutting down'] }));

    await stopped;
    const drained = performance.now() - stopAt;
    expect(watch.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    expect(await watch.ended).toBe(0);
    console.info(`stop() → NOT_SERVING on gRPC Watch: ${toNotServing.toFixed(1)} ms; stop() resolved after ${drained.toFixed(0)} ms (the held request included)`);
  });

  it('answers a request pipelined behind one in flight with Flipt’s 503 body, not Fastify’s', async () => {
    const server = await startServer({ PENNON_SERVER_SHUTDOWN_TIMEOUT: '5s' });
    const port = Number(new URL(server.url).port);
    const body = JSON.stringify({ key: 'inflight', name: 'In flight' });
    const conn = await holdRequest(port, `POST /api/v1/flags HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}`, body.slice(0, 10));
    const stopped = server.stop();
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow(); // the listener is closed: the server is closing

    conn.send(`${body.slice(10)}GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n`);
    const [first, second] = (await conn.closed).split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second.toLowerCase()).toContain('connection: close');
    expect(second.slice(second.indexOf('\r\n\r\n') + 4)).toBe(JSON.stringify({ code: 14, message: 'the server is shutting down', details: [] }));
    await stopped;
  });

  it('cuts a request still in flight at shutdown_timeout', async () => {
    const server = await startServer({ PENNON_SERVER_SHUTDOWN_TIMEOUT: '300ms' });
    const conn = await holdRequest(Number(new URL(server.url).port), 'POST /api/v1/flags HTTP/1.1\r\nHost: x\r\nContent-Length: 100', '{"key"');
    const started = performance.now();
    await server.stop();
    await conn.closed;
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(10_000); // cut, not waiting for a body that never comes
  });
});
