import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, freePort, refusesConnections, serve } from '../support/cli';
import { holdRequest } from '../support/held-request';
import { HealthClient } from '../support/grpc-health-client';
import { until } from '../support/wait';

/**
 * Graceful shutdown of the built executable, watched from outside: the gRPC health service
 * (a real @grpc/grpc-js client) and raw HTTP connections.
 */
describe('pennon serve: signals and health (the built executable)', () => {
  let dir: string;
  let env: Record<string, string>;
  const clients: HealthClient[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pennon-shutdown-'));
    env = { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}` };
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A request held in flight (the server has dispatched it): a first part of its body, the rest when asked. */
  async function heldRequest(port: number, body: string) {
    const held = await holdRequest(port, `POST /api/v1/flags HTTP/1.1\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(body)}`, body.slice(0, 5));
    return { finish: () => held.send(body.slice(5)), closed: held.closed };
  }

  it('SIGTERM: NOT_SERVING at once, new connections refused, the request in flight completes with 200, exit 0', async () => {
    const [port, grpcPort] = await Promise.all([freePort(), freePort()]);
    const { process: child } = await serve({ ...env, PENNON_SERVER_GRPC_PORT: String(grpcPort) }, port);
    const grpc = new HealthClient(grpcPort);
    clients.push(grpc);
    expect(await grpc.check('')).toBe('SERVING');
    const watch = grpc.watch('');
    await watch.until('SERVING');

    const held = await heldRequest(port, JSON.stringify({ key: 'inflight', name: 'In flight' }));
    const signalled = performance.now();
    child.kill('SIGTERM');
    await watch.until('NOT_SERVING');
    const toNotServing = performance.now() - signalled;
    expect(await grpc.check('')).toBe('NOT_SERVING');
    // Not accepting within a moment: with several workers (the default: one per core) the port
    // closes once the last worker's listener has closed, an IPC round trip after NOT_SERVING.
    const toRefused = await until(() => refusesConnections(port), 'new connections refused', 1000);

    held.finish();
    const response = await held.closed;
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(response).toContain('"key":"inflight"');
    const result = await child;
    const exited = performance.now() - signalled;
    expect(result.exitCode).toBe(0);
    expect(watch.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    await expect(grpc.check('', 500)).resolves.toMatch(/^code:(14|4)$/); // gRPC server gone too
    console.info(`SIGTERM → NOT_SERVING (gRPC Watch): ${toNotServing.toFixed(0)} ms; port closed ${toRefused.toFixed(0)} ms later; → exit 0: ${exited.toFixed(0)} ms`);
  });

  it('SIGTERM with a request that never finishes: cut at server.shutdown_timeout, logged, exit 1', async () => {
    const port = await freePort();
    const { process: child } = await serve({ ...env, PENNON_SERVER_SHUTDOWN_TIMEOUT: '500ms' }, port);
    const held = await heldRequest(port, JSON.stringify({ key: 'never', name: 'Never finished' }));
    const signalled = performance.now();
    child.kill('SIGTERM');
    const result = await child;
    const took = performance.now() - signalled;
    await held.closed;
    expect(result.exitCode).toBe(1);
    const lines = String(result.stdout).split('\n').filter((l: string) => l.startsWith('{')).map((l: string) => JSON.parse(l) as { level: number; msg: string; cut?: number });
    expect(lines).toContainEqual(expect.objectContaining({ level: 50, cut: 1, msg: expect.stringMatching(/shutdown_timeout \(500 ms\) reached: cut 1 connection/) }));
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(10_000); // cut at the bound, not waiting for a body that never comes
  });

  it('a second signal during a long drain exits at once with 128 + the signal number', async () => {
    const [port, grpcPort] = await Promise.all([freePort(), freePort()]);
    const { process: child } = await serve({ ...env, PENNON_SERVER_GRPC_PORT: String(grpcPort), PENNON_SERVER_SHUTDOWN_TIMEOUT: '60s' }, port);
    const grpc = new HealthClient(grpcPort);
    clients.push(grpc);
    const watch = grpc.watch('');
    await watch.until('SERVING');
    await heldRequest(port, JSON.stringify({ key: 'never', name: 'Never finished' })); // never finished: the drain would wait 60 s

    child.kill('SIGTERM');
    await watch.until('NOT_SERVING');
    await new Promise((r) => setTimeout(r, 200));
    expect(child.exitCode).toBeNull(); // still draining
    const second = performance.now();
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130); // 128 + SIGINT (2); a second SIGTERM gives 143
    expect(performance.now() - second).toBeLessThan(10_000); // not the 60 s drain
  });

  it('a signal while waiting for the database at start ends the wait with exit 0', async () => {
    const [port, grpcPort, dead] = await Promise.all([freePort(), freePort(), freePort()]);
    const child = execa(CLI, ['serve'], {
      env: {
        PENNON_LOG_LEVEL: 'error',
        PENNON_SERVER_HOST: '127.0.0.1',
        PENNON_SERVER_HTTP_PORT: String(port),
        PENNON_SERVER_GRPC_PORT: String(grpcPort),
        PENNON_DB_URL: `postgres://postgres@127.0.0.1:${dead}/pennon`, // nothing listens there
      },
      reject: false,
    });
    const grpc = new HealthClient(grpcPort);
    clients.push(grpc);
    const watch = grpc.watch('');
    await watch.until('NOT_SERVING', 10_000);
    // gRPC binds first; the HTTP listener follows a moment later.
    let health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
    for (let i = 0; health === null && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 20));
      health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
    }
    if (health === null) throw new Error('the HTTP listener never opened');
    expect(health.status).toBe(503);
    expect(((await health.json()) as { problems: string[] }).problems[0]).toBe('starting');
    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(watch.statuses).toEqual(['NOT_SERVING']);
  });
});
