import pino from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeOnExternal, type CreatedDatabase } from '../../support/backends';
import { freePort, pennon, refusesConnections } from '../../support/cli';
import { FaultProxy } from '../../support/fault-proxy';
import { startServer, type TestServer } from '../../support/server';
import { until } from '../../support/wait';

/**
 * Start-up against a database that accepts connections and never answers (issue 15, item 4),
 * through the fault proxy in `blackhole`: every dialect waits and retries as for a refused one
 * (before, PostgreSQL exited "timeout expired" after 10 s while MySQL waited), one log line per
 * attempt, health NOT_SERVING meanwhile; healed, it serves. With db.startup_timeout, the
 * executable gives up after it with exit 1 and a message that says what to check.
 */

const WAITING = 'the database is not reachable yet; health says NOT_SERVING and start-up retries until it answers';

describeOnExternal(['postgres', 'mysql'], 'start-up with $name accepting connections and never answering', (backend) => {
  let database: CreatedDatabase;
  let proxy: FaultProxy;
  beforeEach(async () => {
    database = await backend.create();
    const target = new URL(database.url);
    proxy = await FaultProxy.start({ host: target.hostname, port: Number(target.port) });
    await proxy.set('blackhole');
  });
  afterEach(async () => {
    await proxy?.close();
    await database?.cleanup();
  });

  it('waits, logging each attempt, NOT_SERVING meanwhile; SERVING once the database answers', async () => {
    const lines: { msg: string; attempt?: number }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const port = await freePort();
    const starting = startServer({ PENNON_DB_URL: proxy.rewrite(database.url), PENNON_DB_CONNECT_TIMEOUT: '1s', PENNON_SERVER_HTTP_PORT: String(port) }, { logger });
    let server: TestServer | undefined;
    try {
      // Three attempts, each ended by db.connect_timeout (1 s), with the back-off between them.
      await until(() => lines.filter((l) => l.msg === WAITING).length >= 3, 'three attempts are logged', 15_000);
      expect(lines.filter((l) => l.msg === WAITING).map((l) => l.attempt).slice(0, 3)).toEqual([1, 2, 3]);
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: 'NOT_SERVING', problems: ['starting', expect.stringMatching(/^database unavailable \(\w+\) since .*: waiting for it$/)] });

      await proxy.set('pass');
      server = await starting;
      expect(await fetch(`${server.url}/health`).then((res) => res.json())).toEqual({ status: 'SERVING' });
    } finally {
      await (server ?? (await starting.catch(() => undefined)))?.stop();
    }
  });

  it('a worker starting while others serve (listenWhenReady) opens no port until it is ready: no connection gets "starting"', async () => {
    const lines: { msg: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const port = await freePort();
    const starting = startServer({ PENNON_DB_URL: proxy.rewrite(database.url), PENNON_DB_CONNECT_TIMEOUT: '1s', PENNON_SERVER_HTTP_PORT: String(port) }, { logger, listenWhenReady: true });
    let server: TestServer | undefined;
    try {
      await until(() => lines.some((l) => l.msg === WAITING), 'the wait is logged', 15_000);
      expect(await refusesConnections(port)).toBe(true); // the other workers take every connection meanwhile
      await proxy.set('pass');
      server = await starting;
      expect(await fetch(`${server.url}/health`).then((res) => res.json())).toEqual({ status: 'SERVING' });
    } finally {
      await (server ?? (await starting.catch(() => undefined)))?.stop();
    }
  });

  it('with db.startup_timeout, the executable exits 1 after it, saying what to check', async () => {
    const started = performance.now();
    const result = await pennon(['serve'], {
      env: {
        PENNON_DB_URL: proxy.rewrite(database.url),
        PENNON_DB_CONNECT_TIMEOUT: '1s',
        PENNON_DB_STARTUP_TIMEOUT: '3s',
        PENNON_SERVER_HOST: '127.0.0.1',
        PENNON_SERVER_HTTP_PORT: String(await freePort()),
        PENNON_LOG_LEVEL: 'warn',
      },
    });
    const elapsed = performance.now() - started;
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/did not answer within db\.startup_timeout \(3000 ms, \d+ attempts; last: .+\): check db\.url and that the database is up/);
    const attempts = result.stdout
      .split('\n')
      .filter((line) => line.includes(WAITING))
      .map((line) => JSON.parse(line) as { attempt: number; waitedMs: number; retryInMs: number });
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts.map((a) => a.attempt)).toEqual(attempts.map((_, i) => i + 1));
    // It gave up at the limit: every retry it announced started within it, the next one would not
    // have (measured by the service's own clock: process start-up on a loaded machine is not the
    // mechanism). Before, PostgreSQL gave up at its first attempt ("timeout expired"), MySQL never.
    const last = attempts[attempts.length - 1];
    expect(last.waitedMs + last.retryInMs).toBeLessThanOrEqual(3000);
    expect(result.stderr).toContain(`${attempts.length + 1} attempts`); // the attempt after the last retry was the last
    expect(elapsed).toBeGreaterThan(3000);
  });
});
