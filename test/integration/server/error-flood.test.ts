import Database from 'better-sqlite3';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { backends } from '../../support/backends';
import { ManualClock } from '../../support/clock';
import { FaultProxy } from '../../support/fault-proxy';
import { expectStatus, startServer, type TestServer } from '../../support/server';

/**
 * No log flood during an outage (issue 15, item 7): 50 writes failing the same way write one
 * error line (with its request id and error) and, once the interval (10 s, on the service's
 * clock: moved here, not waited for) has passed, one summary line with how many more there were.
 * Before, each failed request wrote its own level-50 line with a stack.
 *
 * On SQLite the failure is an internal error (the flags table taken away under the server); on
 * PostgreSQL it is the database refusing connections (the fault proxy), answered 503.
 */

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  failure?: string;
  suppressed?: number;
}

const REQUESTS = 50;

const floodBackends = backends().filter((b) => b.name === 'sqlite' || b.name === 'postgres');

describe.each(floodBackends)('request errors during an outage on $name', ({ name, create }) => {
  it(`${REQUESTS} failing writes: one error line per kind of failure, then one summary line with the count`, async () => {
    const db = await create();
    const lines: Line[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
    const clock = new ManualClock();
    let proxy: FaultProxy | null = null;
    let server: TestServer | null = null;
    try {
      let url = db.url;
      if (name === 'postgres') {
        const target = new URL(db.url);
        proxy = await FaultProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
        url = proxy.rewrite(db.url);
      }
      server = await startServer({ PENNON_DB_URL: url }, { clock, logger });
      expectStatus(await server.api.post('/api/v1/flags', { key: 'f', name: 'F' }), 200);

      // The outage.
      if (proxy) await proxy.set('refuse');
      else new Database(db.name).exec('ALTER TABLE flags RENAME TO flags_taken_away');
      const expected = proxy ? 503 : 500;

      const write = async (i: number) => (await server!.api.put('/api/v1/flags/f', { name: `F${i}` })).status;
      for (let i = 0; i < REQUESTS; i++) expect(await write(i)).toBe(expected);

      const requestLines = () => lines.filter((l) => l.level === 50 && l.reqId !== undefined);
      const summaries = () => lines.filter((l) => l.suppressed !== undefined);
      const first = requestLines();
      const kinds = new Set(first.map((l) => l.failure));
      expect(first.length).toBe(kinds.size); // one line per kind of failure…
      expect(first.length).toBeLessThanOrEqual(2); // …and there are one or two (a connection reset before the refusals)
      expect(first.every((l) => l.failure !== undefined)).toBe(true);
      expect(summaries()).toEqual([]);

      // The interval passes (on the service's clock); the next failure brings the summary first.
      clock.advance(10_000);
      expect(await write(REQUESTS)).toBe(expected);
      const summary = summaries();
      expect(summary.length).toBeGreaterThanOrEqual(1);
      expect(summary.reduce((n, l) => n + l.suppressed!, 0)).toBe(REQUESTS - first.length);
      for (const line of summary) {
        expect(line.level).toBe(50);
        expect(line.msg).toMatch(new RegExp(`… and ${line.suppressed} more like it in the last 10 s$`));
      }
      expect(requestLines().length).toBe(first.length + 1); // the failure after the interval, in full
      const lastFailure = requestLines().at(-1)!.failure;
      expect(lastFailure).toMatch(proxy ? /^unavailable\|/ : /^internal\|/);
    } finally {
      if (proxy) await proxy.set('pass');
      await server?.stop();
      await proxy?.close();
      await db.cleanup();
    }
  });
});
