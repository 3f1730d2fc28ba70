import { request } from 'node:http';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, freePort, tempDir } from '../support/cli';
import { holdRequest } from '../support/held-request';
import { parseResponse } from '../support/raw-http';
import { SseClient } from '../support/sse';
import { until } from '../support/wait';

/**
 * `pennon serve` with server.workers (the built executable): one supervisor, worker processes
 * sharing the ports. Each request here opens its own connection (node:cluster hands connections
 * to the workers in turn), so a run of requests reaches every worker.
 */

/** One request on a connection of its own; the status and body. */
function fresh(port: number, method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: { connection: 'close', ...(payload && { 'content-type': 'application/json' }) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    // A connection that gets no answer at all is a failure to report, not a test left to time out.
    req.setTimeout(5000, () => req.destroy(new Error(`no answer to ${method} ${path} within 5 s`)));
    req.end(payload);
  });
}

/** The pids of a process's living children (Linux: /proc/<pid>/stat's fourth field is the parent). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children.sort((a, b) => a - b);
}

describe('pennon serve with worker processes (the built executable)', () => {
  let dir: string;
  let child: ResultPromise | undefined;
  let output = '';
  beforeEach(() => {
    dir = tempDir('pennon-workers-');
    output = '';
  });
  afterEach(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      for (const pid of childrenOf(child.pid!)) process.kill(pid, 'SIGKILL');
      await child;
    }
    child = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts serve and resolves once the supervisor says every worker serves. */
  async function start(env: Record<string, string>): Promise<{ port: number; workers: number }> {
    const port = await freePort();
    child = execa(CLI, ['serve'], {
      env: { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}`, PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: String(port), PENNON_SERVER_GRPC_PORT: '0', PENNON_LOG_ENCODING: 'json', ...env },
      reject: false,
    });
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    await until(() => /serving with \d+ worker processes/.test(output) || child!.exitCode !== null, 'every worker serves', 20_000);
    const m = /serving with (\d+) worker processes/.exec(output);
    if (!m) throw new Error(`serve did not start: ${output}`);
    return { port, workers: Number(m[1]) };
  }

  it('runs one worker per core by default, and a scrape of any of them counts every worker', async () => {
    const { port, workers } = await start({});
    expect(workers).toBe(Math.max(availableParallelism(), 1));
    expect(childrenOf(child!.pid!)).toHaveLength(workers);
    expect((await fresh(port, 'POST', '/api/v1/namespaces/default/flags', { key: 'on', name: 'On', type: 'BOOLEAN_FLAG_TYPE', enabled: true })).status).toBe(200);
    // The other workers hear of the write within milliseconds, not before the writer's answer
    // (failed once in a full run: a 404 from a worker the broadcast had not reached yet).
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 20; i++) expect((await fresh(port, 'POST', '/evaluate/v1/boolean', { flagKey: 'on', entityId: `e${i}` })).status).toBe(200);
    const scrape = (await fresh(port, 'GET', '/metrics')).body;
    // Counters summed over the workers: all 20, whichever worker answered each.
    expect(scrape).toContain('service_evaluations_requests_total{namespace="",flag="on"} 20\n');
    // Gauges are each worker's own: one series per worker.
    for (let w = 0; w < workers; w++) expect(scrape).toMatch(new RegExp(`^process_resident_memory_bytes\\{worker="${w}"\\} \\d+$`, 'm'));
    expect(scrape.match(/^# TYPE service_evaluations_requests_total counter$/gm)).toHaveLength(1);
  });

  it('a write through one worker reaches every worker’s evaluations within 50 ms', async () => {
    const { port } = await start({ PENNON_SERVER_WORKERS: '2' });
    expect((await fresh(port, 'POST', '/api/v1/namespaces/default/flags', { key: 'switch', name: 'Switch', type: 'BOOLEAN_FLAG_TYPE', enabled: true })).status).toBe(200);
    // Seen by both workers (connections alternate between them) within 50 ms: the worker that
    // wrote sees it before answering, the other once the broadcast has reached it.
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 10; i++) expect(JSON.parse((await fresh(port, 'POST', '/evaluate/v1/boolean', { flagKey: 'switch', entityId: 'e' })).body)).toMatchObject({ enabled: true });
    for (const enabled of [false, true, false]) {
      expect((await fresh(port, 'PUT', '/api/v1/namespaces/default/flags/switch', { key: 'switch', name: 'Switch', enabled })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      const answers = await Promise.all(Array.from({ length: 10 }, () => fresh(port, 'POST', '/evaluate/v1/boolean', { flagKey: 'switch', entityId: 'e' })));
      expect(answers.map((a) => (JSON.parse(a.body) as { enabled: boolean }).enabled)).toEqual(Array(10).fill(enabled));
    }
  });

  it('a write through one worker reaches live streams held by every worker within 1 s (the poll set to a minute)', async () => {
    const { port } = await start({ PENNON_SERVER_WORKERS: '2', PENNON_EVALUATION_REFRESH_INTERVAL: '60s' });
    expect((await fresh(port, 'POST', '/api/v1/namespaces/default/flags', { key: 'live', name: 'Live', type: 'BOOLEAN_FLAG_TYPE' })).status).toBe(200);
    // Connections alternate between the workers: four streams land on both.
    const streams = Array.from({ length: 4 }, () => new SseClient(`http://127.0.0.1:${port}/ofrep/v1/_stream/default/default/events`));
    try {
      for (const stream of streams) {
        await stream.opened;
        await stream.next(); // the version held at connection
      }
      for (const enabled of [true, false]) {
        const wrote = performance.now();
        expect((await fresh(port, 'PUT', '/api/v1/namespaces/default/flags/live', { key: 'live', name: 'Live', enabled })).status).toBe(200);
        const events = await Promise.all(streams.map((stream) => stream.next(1000)));
        expect(events.map((e) => e.type)).toEqual(Array(4).fill('refetchEvaluation'));
        expect(new Set(events.map((e) => e.etag)).size).toBe(1);
        expect(performance.now() - wrote).toBeLessThan(1000);
      }
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('restarts a worker that dies, while the others keep answering', async () => {
    const { port } = await start({ PENNON_SERVER_WORKERS: '2' });
    expect((await fresh(port, 'POST', '/api/v1/namespaces/default/flags', { key: 'on', name: 'On', type: 'BOOLEAN_FLAG_TYPE', enabled: true })).status).toBe(200);
    // Known to every worker before one is killed: a worker killed the instant after a write may
    // not have told the others (their revision poll catches up within evaluation.refresh_interval),
    // and the other worker hears of it within 50 ms, not at once.
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 10; i++) expect((await fresh(port, 'POST', '/evaluate/v1/boolean', { flagKey: 'on', entityId: 'e' })).status).toBe(200);
    const [victim, survivor] = childrenOf(child!.pid!);
    process.kill(victim, 'SIGKILL');
    // Answered throughout: the survivor takes every connection, and the replacement none until
    // it serves (it opens the ports only once ready: never a "starting" 503).
    const statuses = new Set<number>();
    let answered = 0;
    while ((output.match(/"msg":"pennon is serving"/g) ?? []).length < 3 || answered < 10) {
      statuses.add((await fresh(port, 'POST', '/evaluate/v1/boolean', { flagKey: 'on', entityId: 'e' })).status);
      answered++;
      if (answered > 5000) throw new Error(`the replacement did not serve: ${output}`);
    }
    expect([...statuses]).toEqual([200]);
    await until(() => childrenOf(child!.pid!).length === 2, 'a replacement worker runs', 10_000);
    const now = childrenOf(child!.pid!);
    expect(now).toContain(survivor);
    expect(now).not.toContain(victim);
    expect(output).toMatch(/a worker process died: starting another/);
    for (let i = 0; i < 10; i++) expect((await fresh(port, 'POST', '/evaluate/v1/boolean', { flagKey: 'on', entityId: 'e' })).status).toBe(200);
  });

  it('SIGTERM drains every worker: the request in flight completes, every process exits, exit 0', async () => {
    const { port } = await start({ PENNON_SERVER_WORKERS: '2' });
    const body = JSON.stringify({ key: 'inflight', name: 'In flight' });
    const held = await holdRequest(port, `POST /api/v1/flags HTTP/1.1\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(body)}`, body.slice(0, 5));
    const workers = childrenOf(child!.pid!);
    child!.kill('SIGTERM');
    await until(() => /shutting down every worker/.test(output), 'the supervisor heard the signal');
    held.send(body.slice(5));
    const finished = parseResponse(Buffer.from(await held.closed));
    expect(finished.status).toBe(200);
    expect(finished.headers.connection).toBe('close');
    const result = await child!;
    expect(result.exitCode).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow(); // gone
    // The supervisor folded SQLite's write-ahead log back once the workers had gone: the file is the whole database.
    expect(existsSync(join(dir, 'pennon.db-wal'))).toBe(false);
  });

  it('jobs that must run once run in the leader (worker 0) only: token cleanup', async () => {
    const { port } = await start({
      PENNON_SERVER_WORKERS: '2',
      PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      PENNON_AUTHENTICATION_METHODS_TOKEN_CLEANUP_INTERVAL: '100ms',
      PENNON_AUTHENTICATION_METHODS_TOKEN_CLEANUP_GRACE_PERIOD: '1ms',
    });
    for (let i = 0; i < 6; i++) {
      // Expiring one by one: each is a separate race between the workers' timers, were both to clean up.
      const expiresAt = new Date(Date.now() + 300 + i * 250).toISOString();
      expect((await fresh(port, 'POST', '/auth/v1/method/token', { name: `short-${i}`, description: '', expiresAt })).status).toBe(200);
    }
    await until(() => (output.match(/"deleted":\d+/g) ?? []).reduce((n, m) => n + Number(m.slice(10)), 0) >= 6, 'the expired tokens are deleted', 10_000);
    const lines = output.split('\n').filter((line) => line.includes('deleted expired tokens'));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ worker: 0 });
  });

  it('with one worker, serve is a single process (no supervisor)', async () => {
    const port = await freePort();
    child = execa(CLI, ['serve'], {
      env: { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}`, PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: String(port), PENNON_SERVER_GRPC_PORT: '0', PENNON_LOG_ENCODING: 'json', PENNON_SERVER_WORKERS: '1' },
      reject: false,
    });
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    await until(() => /"msg":"pennon is serving"/.test(output), 'serving');
    expect(childrenOf(child.pid!)).toEqual([]);
    expect(output).not.toMatch(/"worker":|worker processes/);
  });
});
