import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa, type ResultPromise } from 'execa';

/** The single executable (dist/pennon, built by the global setup), run as a user runs it. */
export const CLI = resolve(__dirname, '../../dist/pennon');

export function pennon(args: string[], options: { env?: Record<string, string>; cwd?: string; input?: string } = {}) {
  return execa(CLI, args, {
    // gRPC health on a port of its own (0: any free one), so parallel tests never share 9000.
    env: { PENNON_LOG_LEVEL: 'error', PENNON_SERVER_GRPC_PORT: '0', ...options.env },
    cwd: options.cwd,
    input: options.input,
    reject: false,
  });
}

/**
 * Starts `pennon serve` and resolves once /health answers; the caller stops it. The process
 * is wrapped in an object: execa's result is a thenable, which an async function would await.
 */
export async function serve(env: Record<string, string>, port: number): Promise<{ process: ResultPromise }> {
  const child = execa(CLI, ['serve'], {
    env: { PENNON_LOG_LEVEL: 'error', PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: String(port), PENNON_SERVER_GRPC_PORT: '0', ...env },
    reject: false,
  });
  // Each serve is a supervisor and one worker per core: three of them starting together on a
  // two-core machine busy with other suites took over 10 s once.
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`pennon serve exited early: ${(await child).stderr}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.ok) return { process: child };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  const { stderr } = await child;
  throw new Error(`pennon serve did not become healthy within 20 s; what it wrote to stderr: ${String(stderr).slice(-2000) || '(nothing)'}`);
}

/**
 * Whether a new TCP connection to the port is refused (the listener is closed). A fresh socket,
 * not fetch: fetch may reuse a keep-alive connection from an earlier request, and a draining
 * server answers those (503, Connection: close) by design.
 */
export async function refusesConnections(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolveRefused) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolveRefused(false);
    });
    socket.once('error', () => resolveRefused(true));
  });
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

/** A new temporary directory (for a command's files). */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
