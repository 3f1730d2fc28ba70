import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { HTTP_SHAPE, matchingContext, seededDatabase } from './seed';

/**
 * HTTP evaluation throughput: Pennon's POST /evaluate/v1/variant against a bare Fastify JSON
 * POST route, same load generator (autocannon, in this process), same settings, same run,
 * each server in its own process on loopback.
 */
export interface HttpResult {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** The server process's CPU time (user + system) per answered request, in µs: immune to the load generator's share of the machine. */
  cpuMicrosPerRequest: number;
}

/** A process's CPU time so far in µs (Linux: /proc/<pid>/stat utime + stime, in clock ticks of 10 ms). */
export function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * BENCH_SERVER_CPUS (e.g. `0`) pins the servers to those CPUs with taskset, so that the load
 * generator — run it pinned elsewhere: `taskset -c 1 npm run bench -- http` — does not share a
 * core with them. taskset execs the server: the child's pid is the server's.
 */
const PIN = process.env.BENCH_SERVER_CPUS ?? '';

export function startProcess(command: string, args: string[], env: Record<string, string>, pin = PIN): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolveStart, reject) => {
    const [file, argv] = pin === '' ? [command, args] : ['taskset', ['-c', pin, command, ...args]];
    const child = spawn(file, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolveStart({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

async function load(label: string, server: { url: string; child: ChildProcess }, body: string, seconds: number, path = '/evaluate/v1/variant'): Promise<HttpResult> {
  const options = { url: `${server.url}${path}`, method: 'POST' as const, body, headers: { 'content-type': 'application/json' }, connections: 10 };
  await autocannon({ ...options, duration: 2 }); // warm-up
  const cpuBefore = cpuMicros(server.child.pid!);
  const result = await autocannon({ ...options, duration: seconds });
  const cpu = cpuMicros(server.child.pid!) - cpuBefore;
  return {
    cpuMicrosPerRequest: cpu / Math.max(result['2xx'] + result.non2xx, 1),
    label,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

export async function httpBench(seconds = 10): Promise<{ results: HttpResult[]; ratio: number; p99Ratio: number; metricsCost: number; metricsCpuCost: number }> {
  const { dir, dbUrl } = await seededDatabase(HTTP_SHAPE);

  const cli = resolve(__dirname, '../pennon'); // the single executable
  const children: ChildProcess[] = [];
  try {
    const bare = await startProcess(process.execPath, [resolve(__dirname, 'bare-server.cjs')], {});
    children.push(bare.child);
    const serverEnv = {
      PENNON_DB_URL: dbUrl,
      PENNON_SERVER_HOST: '127.0.0.1',
      PENNON_SERVER_HTTP_PORT: '0',
      PENNON_SERVER_GRPC_PORT: '0', // two servers run at once: each its own gRPC health port
      PENNON_LOG_LEVEL: 'info',
      PENNON_LOG_ENCODING: 'json',
    };
    const pennon = await startProcess(cli, ['serve'], serverEnv);
    children.push(pennon.child);
    // The same server without metrics: what recording them costs the hot path.
    const unmetered = await startProcess(cli, ['serve'], { ...serverEnv, PENNON_METRICS_ENABLED: 'false' });
    children.push(unmetered.child);
    const body = JSON.stringify({ namespaceKey: 'default', flagKey: 'flag-0', entityId: 'user-1234', context: matchingContext(HTTP_SHAPE) });
    const booleanBody = JSON.stringify({ namespaceKey: 'default', flagKey: 'bool-0', entityId: 'user-1234', context: matchingContext(HTTP_SHAPE) });
    // Alternate them, three rounds each, and keep the median round: the machine is noisy.
    const rounds: { baseline: HttpResult; evaluation: HttpResult; noMetrics: HttpResult; boolean: HttpResult }[] = [];
    for (let i = 0; i < 3; i++) {
      const baseline = await load('bare Fastify JSON route', bare, body, seconds);
      const evaluation = await load('pennon /evaluate/v1/variant (10 rules x 3 constraints)', pennon, body, seconds);
      const noMetrics = await load('the same with metrics.enabled: false', unmetered, body, seconds);
      const boolean = await load('pennon /evaluate/v1/boolean (segment rollout, threshold)', pennon, booleanBody, seconds, '/evaluate/v1/boolean');
      rounds.push({ baseline, evaluation, noMetrics, boolean });
    }
    rounds.sort((a, b) => a.evaluation.requestsPerSecond / a.baseline.requestsPerSecond - b.evaluation.requestsPerSecond / b.baseline.requestsPerSecond);
    const { baseline, evaluation } = rounds[1];
    const costs = rounds.map((r) => 1 - r.evaluation.requestsPerSecond / r.noMetrics.requestsPerSecond).sort((a, b) => a - b);
    // The steadier figure: extra server CPU per request with metrics on.
    const cpuCosts = rounds.map((r) => r.evaluation.cpuMicrosPerRequest / r.noMetrics.cpuMicrosPerRequest - 1).sort((a, b) => a - b);
    return {
      results: [baseline, evaluation, rounds[1].noMetrics, [...rounds].sort((a, b) => a.boolean.requestsPerSecond - b.boolean.requestsPerSecond)[1].boolean],
      ratio: evaluation.requestsPerSecond / baseline.requestsPerSecond,
      p99Ratio: evaluation.p99 / Math.max(baseline.p99, 1),
      metricsCost: costs[1],
      metricsCpuCost: cpuCosts[1],
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
