import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { HTTP_SHAPE, matchingContext, seededDatabase } from './seed';

/**
 * What recording metrics costs an evaluation request, in CPU instructions: the server runs
 * under valgrind's cachegrind (instruction counts do not depend on what else the machine is
 * doing, unlike req/s or CPU time), answers N requests one at a time (so no batching differs
 * between runs), and the per-request count is the slope between a short and a long run —
 * start-up cancels out. Metrics on and off, each twice, alternating. Needs `valgrind`.
 */

const SHORT = 5_000;
const LONG = 25_000;

async function instructions(bundle: string, dbUrl: string, metrics: boolean, requests: number, body: string, dir: string): Promise<number> {
  const out = join(dir, `cachegrind.${metrics}.${requests}.${Date.now()}`);
  const child = spawn('valgrind', ['--tool=cachegrind', '--cache-sim=no', `--cachegrind-out-file=${out}`, process.execPath, bundle, 'serve'], {
    env: {
      ...process.env,
      PENNON_DB_URL: dbUrl,
      PENNON_SERVER_HOST: '127.0.0.1',
      PENNON_SERVER_HTTP_PORT: '0',
      PENNON_SERVER_GRPC_PORT: '0',
      PENNON_LOG_LEVEL: 'info',
      PENNON_SERVER_WORKERS: '1', // one process: its instructions are the request's
      PENNON_LOG_ENCODING: 'json',
      PENNON_METRICS_ENABLED: String(metrics),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((ok, fail) => {
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(stdout);
      if (m && /pennon is serving/.test(stdout)) ok(m[1]);
    });
    child.on('exit', (code) => fail(new Error(`server exited with ${code}: ${stderr.slice(-500)}`)));
  });
  await autocannon({ url: `${url}/evaluate/v1/variant`, method: 'POST', body, headers: { 'content-type': 'application/json' }, connections: 1, amount: requests });
  const exited = new Promise<void>((ok) => child.on('exit', () => ok()));
  child.kill('SIGINT');
  await exited;
  const m = /I\s+refs:\s+([\d,]+)/.exec(stderr);
  if (!m) throw new Error(`no instruction count from cachegrind: ${stderr.slice(-500)}`);
  return Number(m[1].replace(/,/g, ''));
}

export async function instructionBench(): Promise<{ on: number[]; off: number[]; cost: number }> {
  const { dir, dbUrl } = await seededDatabase(HTTP_SHAPE, 'pennon-bench-instr-');
  const bundle = resolve(__dirname, '../pennon.cjs');
  readFileSync(bundle); // fail early without a build
  const body = JSON.stringify({ namespaceKey: 'default', flagKey: 'flag-0', entityId: 'user-1234', context: matchingContext(HTTP_SHAPE) });
  const perRequest = { on: [] as number[], off: [] as number[] };
  try {
    for (let round = 0; round < 2; round++) {
      for (const metrics of [true, false]) {
        const short = await instructions(bundle, dbUrl, metrics, SHORT, body, dir);
        const long = await instructions(bundle, dbUrl, metrics, LONG, body, dir);
        perRequest[metrics ? 'on' : 'off'].push((long - short) / (LONG - SHORT));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { ...perRequest, cost: mean(perRequest.on) / mean(perRequest.off) - 1 };
}
