import { describe, expect, it } from 'vitest';
import { backends } from '../../support/backends';
import { holdRequest } from '../../support/held-request';
import { KeepAliveConnection, parseResponse } from '../../support/raw-http';
import { expectStatus, startServer } from '../../support/server';
import { until } from '../../support/wait';

/**
 * Shutdown under keep-alive traffic (issue 15, item 6): no request is reset. During the drain
 * every answer says `Connection: close` (the last one on its connection, when requests are
 * pipelined), requests in flight finish and their writes are applied, new requests on open
 * connections get Flipt's 503, /health says NOT_SERVING, and only then are connections closed —
 * by the server after a complete answer, never reset.
 */

const SHUTTING_DOWN = { code: 14, message: 'the server is shutting down', details: [] };

/** Splits what a connection received into its responses (each framed by Content-Length). */
function responses(text: string) {
  const out: ReturnType<typeof parseResponse>[] = [];
  let rest = Buffer.from(text, 'utf8');
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    const head = parseResponse(rest.subarray(0, end + 4));
    const length = Number(head.headers['content-length'] ?? 0);
    out.push({ ...head, body: rest.subarray(end + 4, end + 4 + length) });
    rest = rest.subarray(end + 4 + length);
  }
  return out;
}

// SQLite always; PostgreSQL when configured (a write in flight on a pool connection).
const drainBackends = backends().filter((b) => b.name === 'sqlite' || b.name === 'postgres');

describe.each(drainBackends)('the drain on $name: every request gets a complete answer', ({ create }) => {
  it('answers in-flight requests with Connection: close, new ones on open connections with 503, then closes — no reset, the write applied', async () => {
    const db = await create();
    try {
      const server = await startServer({ PENNON_DB_URL: db.url, PENNON_SERVER_SHUTDOWN_TIMEOUT: '20s' });
      const port = Number(new URL(server.url).port);
      expectStatus(await server.api.post('/api/v1/flags', { key: 'f', name: 'F' }), 200);

      // A write in flight, and an evaluation in flight (the fast lane) on keep-alive connections.
      const putBody = JSON.stringify({ key: 'f', name: 'Renamed during the drain' });
      const put = await holdRequest(port, `PUT /api/v1/flags/f HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(putBody)}`, putBody.slice(0, 10));
      const evalBody = JSON.stringify({ flagKey: 'f', entityId: 'e', context: {} });
      const evaluation = await holdRequest(port, `POST /evaluate/v1/variant HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(evalBody)}`, evalBody.slice(0, 5));

      // A pooled keep-alive connection, answered just before the drain begins: its client is
      // about to send the next request on it.
      const pooled = await KeepAliveConnection.open(port);
      const before = await pooled.request('GET', '/api/v1/flags/f');
      expect(before.status).toBe(200);
      expect(before.headers.connection).toBe('keep-alive');

      const stopping = server.service.stop();
      await until(() => server.service.services.health.phase === 'draining', 'the drain has begun');

      // The pooled connection's next request: Flipt's 503, Connection: close, then closed by the server.
      const late = await pooled.request('GET', '/api/v1/flags/f');
      expect(late.status).toBe(503);
      expect(late.headers.connection).toBe('close');
      expect(JSON.parse(late.text)).toEqual(SHUTTING_DOWN);
      await pooled.closed;
      expect(pooled.error).toBeNull();

      // The requests in flight finish: the PUT is answered (and closes its connection)…
      put.send(putBody.slice(10));
      const [putAnswer, ...afterPut] = responses(await put.closed);
      expect(put.error()).toBeNull();
      expect(afterPut).toEqual([]);
      expect(putAnswer.status).toBe(200);
      expect(putAnswer.headers.connection).toBe('close');
      expect(JSON.parse(putAnswer.body.toString())).toMatchObject({ key: 'f', name: 'Renamed during the drain' });

      // …and the evaluation too, with a /health and a write pipelined behind it: all three are
      // answered, the last one closing the connection.
      evaluation.send(`${evalBody.slice(5)}GET /health HTTP/1.1\r\nHost: x\r\n\r\nDELETE /api/v1/flags/f HTTP/1.1\r\nHost: x\r\n\r\n`);
      const [evaluated, health, refused, ...more] = responses(await evaluation.closed);
      expect(evaluation.error()).toBeNull();
      expect(more).toEqual([]);
      expect(evaluated.status).toBe(200);
      expect(JSON.parse(evaluated.body.toString())).toMatchObject({ flagKey: 'f', match: false });
      expect(evaluated.headers.connection).toBe('keep-alive'); // two more answers follow on it
      expect(health.status).toBe(503);
      expect(JSON.parse(health.body.toString())).toEqual({ status: 'NOT_SERVING', problems: ['shutting down'] });
      expect(refused.status).toBe(503);
      expect(refused.headers.connection).toBe('close');
      expect(JSON.parse(refused.body.toString())).toEqual(SHUTTING_DOWN);

      expect(await stopping).toEqual({ cut: 0 });

      // The write answered during the drain is in the database; the refused DELETE is not.
      const again = await startServer({ PENNON_DB_URL: db.url });
      try {
        expect(expectStatus(await again.api.get('/api/v1/flags/f'), 200).name).toBe('Renamed during the drain');
      } finally {
        await again.stop();
      }
    } finally {
      await db.cleanup();
    }
  });

  it('under load: 8 keep-alive clients writing without pause across the drain — every request answered, every write answered 200 applied, none reset', { timeout: 120_000 }, async () => {
    const db = await create();
    try {
      const server = await startServer({ PENNON_DB_URL: db.url, PENNON_SERVER_SHUTDOWN_TIMEOUT: '20s' });
      const port = Number(new URL(server.url).port);
      const clients = 8;
      for (let i = 0; i < clients; i++) expectStatus(await server.api.post('/api/v1/flags', { key: `f${i}`, name: 'start' }), 200);
      let answered = 0;
      // Each client writes its own flag, one request at a time on one connection, until the
      // server closes the connection; it remembers the last name a 200 answered.
      const run = async (i: number) => {
        const connection = await KeepAliveConnection.open(port);
        let applied = 'start';
        const statuses = new Set<number>();
        for (let k = 0; ; k++) {
          const name = `n${k}`;
          const res = await connection.request('PUT', `/api/v1/flags/f${i}`, JSON.stringify({ key: `f${i}`, name }));
          answered++;
          statuses.add(res.status);
          if (res.status === 200) applied = name;
          else expect([res.status, JSON.parse(res.text)]).toEqual([503, SHUTTING_DOWN]);
          if (res.headers.connection === 'close') break;
        }
        await connection.closed;
        return { applied, statuses, error: connection.error };
      };
      const running = Array.from({ length: clients }, (_, i) => run(i));
      await until(() => answered >= 80, '80 writes were answered', 60_000);
      const report = await server.service.stop();
      const results = await Promise.all(running);
      expect(report).toEqual({ cut: 0 });
      expect(results.map((r) => r.error)).toEqual(results.map(() => null)); // none reset
      expect(results.every((r) => r.statuses.has(200))).toBe(true);

      const again = await startServer({ PENNON_DB_URL: db.url });
      try {
        for (let i = 0; i < clients; i++) expect(expectStatus(await again.api.get(`/api/v1/flags/f${i}`), 200).name).toBe(results[i].applied);
      } finally {
        await again.stop();
      }
    } finally {
      await db.cleanup();
    }
  });

  it('cuts what is still in flight at shutdown_timeout and reports how many requests it cut', async () => {
    const db = await create();
    try {
      const server = await startServer({ PENNON_DB_URL: db.url, PENNON_SERVER_SHUTDOWN_TIMEOUT: '300ms' });
      const port = Number(new URL(server.url).port);
      // Two requests whose bodies never finish.
      const held = await Promise.all([1, 2].map(() => holdRequest(port, 'POST /api/v1/flags HTTP/1.1\r\nHost: x\r\nContent-Length: 100', '{"key"')));
      const started = performance.now();
      const report = await server.service.stop();
      const took = performance.now() - started;
      expect(report).toEqual({ cut: 2 });
      await Promise.all(held.map((h) => h.closed));
      expect(took).toBeGreaterThanOrEqual(250);
      expect(took).toBeLessThan(10_000); // cut at the bound, not waiting for bodies that never come
    } finally {
      await db.cleanup();
    }
  });
});
