import { get, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHttpStream, type HttpStream } from '../../../internal/server/live-http';
import { expectStatus, startServer, useServer, type TestServer } from '../../support/server';
import { SseClient } from '../../support/sse';
import { until } from '../../support/wait';

/**
 * What holding many live streams must not cost: the limit answers 503 beyond it; connections
 * that come and go leave no subscription, watch or listener behind; a client that stops reading
 * is dropped without holding up the others; shutdown ends every stream cleanly, at once.
 */

const STREAM = '/ofrep/v1/_stream/default/default/events';

/** Opens a stream with node:http; resolves with its response once the headers are in. */
function open(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, { agent: false }, resolve).on('error', reject));
}

describe('live streams: limit and leaks', () => {
  const server = useServer({ PENNON_STREAMS_MAX: '5' });

  it('answers 503 beyond streams.max, before any byte of a stream, and takes a new one once one leaves', async () => {
    const held = await Promise.all(Array.from({ length: 5 }, () => open(`${server.url}${STREAM}`)));
    expect(held.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(server.service.services.live.size).toBe(5);
    // Operators see them: every stream held, one watched namespace.
    const scrape = await (await fetch(`${server.url}/metrics`)).text();
    expect(scrape).toMatch(/^service_live_streams 5$/m);
    expect(scrape).toMatch(/^service_live_watched_namespaces 1$/m);
    const refused = await fetch(`${server.url}${STREAM}`);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { errorDetails: string }).errorDetails).toMatch(/streams\.max/);
    held[0].destroy();
    await until(() => server.service.services.live.size === 4, 'the hub forgets the stream that left', 2000);
    const again = await open(`${server.url}${STREAM}`);
    expect(again.statusCode).toBe(200);
    for (const r of [...held.slice(1), again]) r.destroy();
    await until(() => server.service.services.live.size === 0, 'every stream is forgotten', 2000);
  });

  it('10,000 connections that come and go leave no stream, watch or listener behind', { timeout: 120_000 }, async () => {
    const { live, snapshots } = server.service.services;
    let done = 0;
    const worker = async () => {
      while (done < 10_000) {
        done++;
        const res = await open(`${server.url}${STREAM}`);
        expect(res.statusCode).toBe(200);
        // Left after the first event (the version at connection), the way a closed tab leaves.
        await new Promise<void>((resolve) => res.once('data', () => resolve()));
        res.destroy();
      }
    };
    // Five at a time: the limit of this server.
    await Promise.all(Array.from({ length: 5 }, worker));
    await until(() => live.size === 0, 'every stream is forgotten', 5000);
    expect(live.watches).toBe(0);
    expect(snapshots.watching).toBe(0);
    expect(live.stats.opened).toBeGreaterThanOrEqual(10_000);
  });
});

describe('heartbeats', () => {
  const server = useServer({ PENNON_STREAMS_HEARTBEAT_INTERVAL: '100ms' });

  it('an idle stream carries a comment line every streams.heartbeat_interval (EventSource ignores it)', async () => {
    const res = await open(`${server.url}${STREAM}`);
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    await until(() => (text.match(/^: ping$/gm) ?? []).length >= 3, 'three heartbeats arrive', 2000);
    // Nothing changed: the only event is the version sent at connection.
    expect(text.match(/refetchEvaluation/g)).toHaveLength(1);
    res.destroy();
  });
});

describe('a client that stops reading', () => {
  let app: FastifyInstance;
  const streams: HttpStream[] = [];
  beforeAll(async () => {
    app = Fastify();
    app.get('/s', async (request, reply) => {
      streams.push(openHttpStream(request, reply, { contentType: 'application/octet-stream', maxBufferedBytes: 256 * 1024 }));
      return reply;
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => app.close());

  it('is dropped once its backlog passes the bound, while another client gets every chunk', { timeout: 60_000 }, async () => {
    const { port } = app.server.address() as { port: number };
    // The stalled client: a socket that sends its request and never reads.
    const stalled = connect(port, '127.0.0.1');
    stalled.write('GET /s HTTP/1.1\r\nHost: x\r\n\r\n');
    stalled.pause();
    await until(() => streams.length === 1, 'the stalled client is streaming', 2000);
    const reader = await open(`http://127.0.0.1:${port}/s`);
    let received = 0;
    reader.on('data', (chunk: Buffer) => (received += chunk.length));
    const [slow, fast] = streams;
    const chunk = 'x'.repeat(64 * 1024);
    let sent = 0;
    // Far more than the kernel's socket buffers hold: the stalled stream's backlog must grow.
    for (let i = 0; i < 1000 && slow.open; i++) {
      slow.write(chunk);
      fast.write(chunk);
      sent += chunk.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(slow.open).toBe(false);
    expect(sent).toBeLessThan(1000 * chunk.length);
    await until(() => received >= sent, 'the reading client has every chunk', 10_000);
    expect(fast.open).toBe(true);
    fast.end();
    stalled.destroy();
  });
});

describe('shutdown', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ PENNON_SERVER_SHUTDOWN_TIMEOUT: '10s' });
    expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key: 'b', name: 'B', type: 'BOOLEAN_FLAG_TYPE' }), 200);
  });

  it('ends every stream cleanly at once, not at shutdown_timeout', async () => {
    const raw = await open(`${server.url}${STREAM}`);
    const ended = new Promise<'end' | 'aborted'>((resolve) => {
      raw.on('end', () => resolve('end'));
      raw.on('aborted', () => resolve('aborted'));
      raw.on('error', () => resolve('aborted'));
      raw.resume();
    });
    const sse = new SseClient(`${server.url}${STREAM}`);
    await sse.opened;
    const started = performance.now();
    const report = await server.stop();
    expect(performance.now() - started).toBeLessThan(3000);
    expect(await ended).toBe('end');
    expect(report).toMatchObject({ cut: 0 });
    sse.close();
  });
});
