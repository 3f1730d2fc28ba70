import type { Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { DRAIN_MS, drainBound } from '../../../internal/server/oversized';
import { expectStatus, useServer } from '../../support/server';
import { upload, type UploadResult } from '../../support/upload';

/**
 * A body over the limit (1 MiB) is answered 413 with Flipt's error body and Connection: close
 * while the client is still sending; the server then reads and discards the rest of the
 * upload, up to drainBound(limit) bytes and DRAIN_MS, before closing — so a client that keeps
 * sending reads its 413 instead of a reset connection. On the evaluation fast lane and on
 * Fastify's routes (the webhook's 5 MiB limit is in test/integration/webhook/route.test.ts).
 */

const MiB = 1024 * 1024;
const LIMIT = MiB;
const TOO_LARGE = JSON.stringify({ code: 8, message: 'request body is too large', details: [] });

/**
 * What a client must read: the whole 413 with Connection: close and its JSON — Flipt's error
 * body, or OFREP's own (`errorCode`) on OFREP routes — and, when `clean`, no reset.
 */
function problemOf(result: UploadResult, path: string, clean = true): string | null {
  const res = result.response;
  if (res === null) return `no answer (error ${result.error}, ${result.written} bytes written)`;
  if (res.status !== 413) return `status ${res.status}`;
  if (res.headers.connection !== 'close') return `connection: ${res.headers.connection}`;
  const body = res.body.toString('utf8');
  const ofrep = path.startsWith('/ofrep/');
  if (ofrep ? (JSON.parse(body) as { errorCode?: string }).errorCode !== 'GENERAL' : body !== TOO_LARGE) return `body ${JSON.stringify(body.slice(0, 100))}`;
  if (res.headers['content-length'] !== String(res.body.length)) return `content-length ${res.headers['content-length']} for ${res.body.length} bytes`;
  if (clean && result.error !== null) return `${result.error} after the answer (${result.written} bytes written)`;
  return null;
}

describe('oversized request bodies', () => {
  const server = useServer({ PENNON_SERVER_MAX_BODY_BYTES: String(LIMIT) });
  /** The server's side of every connection, to see how much of an upload it read. */
  const sockets: Socket[] = [];

  beforeAll(async () => {
    server.service.app.server.on('connection', (socket: Socket) => sockets.push(socket));
    expectStatus(await server.api.post('/api/v1/flags', { key: 'big', name: 'Big' }), 200);
  });

  const ROUTES = [
    ['the fast lane', '/evaluate/v1/variant'],
    ['a Fastify route', '/api/v1/flags'],
    ['a Fastify route in its own scope (OFREP)', '/ofrep/v1/evaluate/flags/big'],
  ] as const;

  for (const [name, path] of ROUTES) {
    it(`${name}: a client that keeps sending 4 MiB reads the 413 and its JSON, 50 times out of 50`, async () => {
      const problems: string[] = [];
      for (let i = 0; i < 50; i++) {
        const problem = problemOf(await upload(server.url, path, { total: 4 * MiB }), path);
        if (problem !== null) problems.push(`#${i}: ${problem}`);
      }
      expect(problems).toEqual([]);
    });

    it(`${name}: chunked past the limit (no Content-Length) is answered the same way`, async () => {
      const problems: string[] = [];
      for (let i = 0; i < 10; i++) {
        const problem = problemOf(await upload(server.url, path, { total: 4 * MiB, chunked: true }), path);
        if (problem !== null) problems.push(`#${i}: ${problem}`);
      }
      expect(problems).toEqual([]);
    });
  }

  it('an upload far beyond the bound is cut off once the bound is read, after the client has its 413', async () => {
    for (const [, path] of ROUTES) {
      const before = sockets.length;
      const result = await upload(server.url, path, { total: 256 * MiB });
      expect(problemOf(result, path, false), path).toBeNull();
      expect(result.written, path).toBeLessThan(256 * MiB);
      const socket = sockets[before];
      // The server read the upload up to the bound (plus what was in flight), not all of it.
      expect(socket.bytesRead, path).toBeGreaterThan(LIMIT);
      expect(socket.bytesRead, path).toBeLessThan(drainBound(LIMIT) + MiB);
    }
  });

  it(`a client that stops sending is closed within DRAIN_MS (${DRAIN_MS} ms) of its 413`, async () => {
    const before = sockets.length;
    let serverClosedAt = 0;
    const serverClosed = new Promise<void>((resolve) => {
      server.service.app.server.once('connection', (socket: Socket) => socket.once('close', () => resolve()));
    }).then(() => (serverClosedAt = performance.now()));
    const started = performance.now();
    const result = await upload(server.url, '/api/v1/flags', { total: 4 * MiB, stallAfter: 2 * MiB, release: serverClosed });
    expect(problemOf(result, '/api/v1/flags', false)).toBeNull();
    expect(sockets.length).toBe(before + 1);
    // Not closed when the answer was written (the rest of the upload might still come), nor held past the bound.
    expect(serverClosedAt - started).toBeGreaterThan(DRAIN_MS / 2);
    expect(serverClosedAt - started).toBeLessThan(DRAIN_MS + 3000);
  });

  it('the server still answers, and a body just under the limit is still taken', async () => {
    const name = 'n'.repeat(200);
    const description = 'd'.repeat(LIMIT - 1000);
    expect(expectStatus(await server.api.post('/api/v1/flags', { key: 'near-limit', name, description }), 200).description).toBe(description);
  });
});
