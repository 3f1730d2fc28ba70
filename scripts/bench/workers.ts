import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { cpuMicros, startProcess } from './http';
import { HTTP_SHAPE, matchingContext, seededDatabase } from './seed';
import { postScript, wrk } from './wrk';

/**
 * `serve` with one process against two workers (server.workers), in one run, alternating, on
 * this machine's cores with wrk sharing them (nothing pinned: the question is what the whole
 * machine answers). Server CPU per request counts the supervisor and every worker.
 */
export interface WorkersRound {
  workers: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMicrosPerRequest: number;
  errors: number;
}

/** A process and its children (the supervisor's workers): their pids. */
function family(pid: number): number[] {
  const pids = [pid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]) === pid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const median = (xs: WorkersRound[], by: (r: WorkersRound) => number) => [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)];

export async function workersBench(seconds = 10): Promise<{ one: WorkersRound; two: WorkersRound; throughputRatio: number }> {
  const { dir, dbUrl } = await seededDatabase(HTTP_SHAPE, 'pennon-bench-workers-');
  const cli = resolve(__dirname, '../pennon');
  const env = { PENNON_DB_URL: dbUrl, PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: '0', PENNON_SERVER_GRPC_PORT: '0', PENNON_LOG_LEVEL: 'info', PENNON_LOG_ENCODING: 'json' };
  const body = JSON.stringify({ namespaceKey: 'default', flagKey: 'flag-0', entityId: 'user-1234', context: matchingContext(HTTP_SHAPE) });
  const script = postScript(dir, 'variant', '/evaluate/v1/variant', body);
  const servers = [];
  try {
    for (const workers of [1, 2]) {
      const server = await startProcess(cli, ['serve'], { ...env, PENNON_SERVER_WORKERS: String(workers) }, '');
      servers.push({ workers, server });
      await new Promise((r) => setTimeout(r, 1000)); // the other workers start once the first serves
      await wrk(server.url, script, 2, 20, ''); // warm-up
    }
    const rounds: WorkersRound[] = [];
    for (let round = 0; round < 3; round++) {
      for (const { workers, server } of servers) {
        const pids = family(server.child.pid!);
        const cpu = () => pids.reduce((sum, pid) => sum + cpuMicros(pid), 0);
        const before = cpu();
        const r = await wrk(server.url, script, seconds, 20, '');
        const used = cpu() - before;
        rounds.push({ workers, requestsPerSecond: Math.round(r.requests / (r.durationUs / 1e6)), p50Ms: r.p50Us / 1000, p99Ms: r.p99Us / 1000, cpuMicrosPerRequest: used / Math.max(r.requests, 1), errors: r.errors });
      }
    }
    const one = median(rounds.filter((r) => r.workers === 1), (r) => r.requestsPerSecond);
    const two = median(rounds.filter((r) => r.workers === 2), (r) => r.requestsPerSecond);
    return { one, two, throughputRatio: two.requestsPerSecond / one.requestsPerSecond };
  } finally {
    for (const { server } of servers) server.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
