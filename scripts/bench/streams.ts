import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { startProcess } from './http';
import { seededDatabase } from './seed';
import { LOAD_CPUS, SERVER_CPUS } from './wrk';

/**
 * Live streams at scale: the executable (pinned to BENCH_SERVER_CPUS) holds 1, 1,000 and 10,000
 * OFREP event streams, then as many flagd EventStreams (over up to 100 gRPC connections),
 * opened by stream-clients.ts (pinned to BENCH_LOAD_CPUS); for each kind and size,
 * the server's RSS per 1,000 streams, and five writes through the management API, each timed
 * from just before the write is sent to the event's arrival at every client (p50, p99, max).
 * The write's own round trip is inside the figure: it is what a user waiting for a change sees.
 */

export interface StreamRound {
  kind: 'sse' | 'grpc';
  clients: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  rssPer1000Mb: number;
  received: number;
  expected: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const freePort = () =>
  new Promise<number>((done) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
  });

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

export async function streamsBench(sizes = [1, 1000, 10_000], writes = 5, kinds: ('sse' | 'grpc')[] = ['sse', 'grpc']): Promise<StreamRound[]> {
  const { dir, dbUrl } = await seededDatabase({ namespace: 'default', flags: 100, rulesPerFlag: 2, constraintsPerSegment: 2, segments: 10 });
  const cli = resolve(__dirname, '../pennon');
  const results: StreamRound[] = [];
  let server: { child: ChildProcess; url: string } | undefined;
  try {
    const grpcPort = await freePort();
    server = await startProcess(cli, ['serve'], { PENNON_DB_URL: dbUrl, PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: '0', PENNON_SERVER_GRPC_PORT: String(grpcPort), PENNON_SERVER_WORKERS: '1', PENNON_LOG_LEVEL: 'info', PENNON_LOG_ENCODING: 'json' }, SERVER_CPUS);
    const { url } = server;
    const pid = server.child.pid!;
    for (const [kind, clients] of kinds.flatMap((k) => sizes.map((n) => [k, n] as const))) {
      const rssBeforeMb = rssMb(pid);
      const target = kind === 'sse' ? { STREAM_URL: `${url}/ofrep/v1/_stream/default/default/events` } : { STREAM_GRPC: `127.0.0.1:${grpcPort}`, STREAM_CHANNELS: String(Math.min(100, clients)) };
      const load = spawn('taskset', ['-c', LOAD_CPUS, process.execPath, resolve(__dirname, 'stream-clients.cjs')], {
        env: { ...process.env, ...target, STREAM_CLIENTS: String(clients) },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const lines = createInterface({ input: load.stdout! })[Symbol.asyncIterator]();
      const next = async () => (await lines.next()).value as string;
      try {
        const ready = await next();
        if (!ready.startsWith('ready')) throw new Error(`the clients said ${ready}`);
        const rssAfterMb = rssMb(pid);
        const latencies: number[] = [];
        let received = 0;
        for (let round = 1; round <= writes; round++) {
          const t0 = process.hrtime.bigint();
          const res = await fetch(`${url}/api/v1/namespaces/default/flags/flag-0`, { method: 'PUT', body: JSON.stringify({ name: `round ${round}`, enabled: round % 2 === 0 }) });
          if (res.status !== 200) throw new Error(`the write answered ${res.status}`);
          load.stdin!.write(`report ${round} ${t0}\n`);
          const report = JSON.parse(await next()) as { received: number; latencies: number[] };
          received += report.received;
          latencies.push(...report.latencies);
        }
        latencies.sort((a, b) => a - b);
        results.push({
          kind,
          clients,
          rssBeforeMb,
          rssAfterMb,
          rssPer1000Mb: clients >= 1000 ? ((rssAfterMb - rssBeforeMb) * 1000) / clients : NaN,
          received,
          expected: clients * writes,
          p50Ms: percentile(latencies, 0.5),
          p99Ms: percentile(latencies, 0.99),
          maxMs: latencies[latencies.length - 1],
        });
      } finally {
        load.kill();
        await new Promise((done) => load.once('exit', done));
        // The server forgets the streams before the next size is measured.
        await new Promise((done) => setTimeout(done, 1000));
      }
    }
  } finally {
    server?.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
