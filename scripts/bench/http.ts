import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { HTTP_SHAPE, matchingContext, seededDatabase } from './seed';
import { postScript, SERVER_CPUS, wrk, type WrkResult } from './wrk';

/** HTTP evaluation cost: Pennon's routes against bare routes of the same shapes, with wrk (httpBench). */
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

/** Starts a server, pinned to `pin`'s CPUs when given (taskset execs it: the child's pid is the server's). */
export function startProcess(command: string, args: string[], env: Record<string, string>, pin = ''): Promise<{ child: ChildProcess; url: string }> {
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

interface Target {
  label: string;
  server: { url: string; child: ChildProcess };
  script: string;
}

/** A load generator's run as a result, with the server's CPU time (µs) spent over it. */
export function resultOf(label: string, r: WrkResult, cpu: number): HttpResult {
  return {
    label,
    requestsPerSecond: Math.round(r.requests / (r.durationUs / 1e6)),
    p50: r.p50Us / 1000,
    p99: r.p99Us / 1000,
    errors: r.errors,
    cpuMicrosPerRequest: cpu / Math.max(r.requests, 1),
  };
}

async function load(target: Target, seconds: number): Promise<HttpResult> {
  const cpuBefore = cpuMicros(target.server.child.pid!);
  const r = await wrk(target.server.url, target.script, seconds);
  return resultOf(target.label, r, cpuMicros(target.server.child.pid!) - cpuBefore);
}

export interface HttpComparison {
  /** What is compared: Pennon's route against the bare Fastify and raw node:http routes of the same path. */
  surface: string;
  pennon: HttpResult;
  fastify: HttpResult;
  raw: HttpResult;
  /** Bare Fastify's server CPU per request ÷ Pennon's (≥ 1: Pennon costs less). */
  cpuRatio: number;
  /** Pennon's p99 ÷ bare Fastify's. */
  p99Ratio: number;
}

/** The round with the median server CPU per request. */
export const median = (xs: HttpResult[]): HttpResult => [...xs].sort((a, b) => a.cpuMicrosPerRequest - b.cpuMicrosPerRequest)[Math.floor(xs.length / 2)];

/**
 * Pennon's variant, boolean, OFREP and batch (10 flags) routes against a bare Fastify route and a
 * raw node:http route answering the same shapes (bare-server.ts), and variant with metrics off.
 * Servers pinned to BENCH_SERVER_CPUS (default core 0), wrk to BENCH_LOAD_CPUS (default 1), 10
 * connections; every target once per round, rounds alternate, medians of 3 by server CPU per
 * request (req/s on two cores depends on wrk's share; CPU per request does not).
 */
export async function httpBench(seconds = 10): Promise<{ comparisons: HttpComparison[]; noMetrics: HttpResult; metricsCpuCost: number }> {
  const { dir, dbUrl } = await seededDatabase(HTTP_SHAPE);
  const cli = resolve(__dirname, '../pennon'); // the single executable
  const children: ChildProcess[] = [];
  const start = async (command: string, args: string[], env: Record<string, string>) => {
    const server = await startProcess(command, args, env, SERVER_CPUS);
    children.push(server.child);
    return server;
  };
  try {
    const bareScript = resolve(__dirname, 'bare-server.cjs');
    const fastify = await start(process.execPath, [bareScript], { BARE: 'fastify' });
    const raw = await start(process.execPath, [bareScript], { BARE: 'http' });
    const serverEnv = {
      PENNON_DB_URL: dbUrl,
      PENNON_SERVER_HOST: '127.0.0.1',
      PENNON_SERVER_HTTP_PORT: '0',
      PENNON_SERVER_GRPC_PORT: '0', // two servers run at once: each its own gRPC health port
      PENNON_LOG_LEVEL: 'info',
      PENNON_SERVER_WORKERS: '1', // one process on one core: the bare routes' terms
      PENNON_LOG_ENCODING: 'json',
    };
    const pennon = await start(cli, ['serve'], serverEnv);
    const unmetered = await start(cli, ['serve'], { ...serverEnv, PENNON_METRICS_ENABLED: 'false' });

    const context = matchingContext(HTTP_SHAPE);
    const surfaces = [
      { surface: 'variant', path: '/evaluate/v1/variant', body: { namespaceKey: 'default', flagKey: 'flag-0', entityId: 'user-1234', context } },
      { surface: 'boolean', path: '/evaluate/v1/boolean', body: { namespaceKey: 'default', flagKey: 'bool-0', entityId: 'user-1234', context } },
      { surface: 'OFREP', path: '/ofrep/v1/evaluate/flags/flag-0', body: { context: { ...context, targetingKey: 'user-1234' } } },
      {
        surface: 'batch of 10',
        path: '/evaluate/v1/batch',
        body: { requests: Array.from({ length: 10 }, (_, i) => ({ namespaceKey: 'default', flagKey: `flag-${i}`, entityId: 'user-1234', context: matchingContext(HTTP_SHAPE, i) })) },
      },
    ];
    const targets = surfaces.map(({ surface, path, body }) => {
      const script = postScript(dir, surface.replace(/\W/g, '-'), path, JSON.stringify(body));
      return { surface, pennon: { label: `pennon ${surface}`, server: pennon, script }, fastify: { label: `bare Fastify ${surface}`, server: fastify, script }, raw: { label: `raw node:http ${surface}`, server: raw, script } };
    });
    const noMetricsTarget: Target = { label: 'pennon variant, metrics.enabled: false', server: unmetered, script: targets[0].pennon.script };
    // Warm every server's path once (JIT), then alternate.
    for (const t of targets) for (const x of [t.pennon, t.fastify, t.raw]) await load(x, 2);
    await load(noMetricsTarget, 2);
    const runs = new Map<string, HttpResult[]>();
    const record = (r: HttpResult) => runs.set(r.label, [...(runs.get(r.label) ?? []), r]);
    for (let round = 0; round < 3; round++) {
      for (const t of targets) for (const x of [t.fastify, t.pennon, t.raw]) record(await load(x, seconds));
      record(await load(noMetricsTarget, seconds));
    }
    const comparisons = targets.map((t) => {
      const [p, f, r] = [t.pennon, t.fastify, t.raw].map((x) => median(runs.get(x.label)!));
      return { surface: t.surface, pennon: p, fastify: f, raw: r, cpuRatio: f.cpuMicrosPerRequest / p.cpuMicrosPerRequest, p99Ratio: p.p99 / f.p99 };
    });
    const noMetrics = median(runs.get(noMetricsTarget.label)!);
    return { comparisons, noMetrics, metricsCpuCost: comparisons[0].pennon.cpuMicrosPerRequest / noMetrics.cpuMicrosPerRequest - 1 };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
