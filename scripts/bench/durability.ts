import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startProcess } from './http';
import { bigDocument } from './startup';

/**
 * What SQLite's synchronous=FULL (the default: every commit syncs the WAL, so an acknowledged
 * write survives a power loss) costs against NORMAL (`?_synchronous=normal`: synced at
 * checkpoints only), issue 15 item 8: 1,000 flag creates one after another over HTTP (each its
 * own transaction, so each pays a sync), and `pennon flag import` of 10,000 flags (one
 * transaction). Modes alternate, three rounds each, medians. The database lives in
 * BENCH_DIR (default the system's temporary folder): put it on the disk you mean to measure —
 * on tmpfs a sync costs nothing.
 */
const BIN = resolve(__dirname, '../pennon');
const MODES = ['full', 'normal'] as const;
type Mode = (typeof MODES)[number];

export interface DurabilityResult {
  mode: Mode;
  createMeanMs: number;
  createP50Ms: number;
  createP99Ms: number;
  importMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

async function creates(dbUrl: string): Promise<number[]> {
  let server: { url: string; child: ChildProcess } | undefined;
  try {
    server = await startProcess(BIN, ['serve'], { PENNON_DB_URL: dbUrl, PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: '0', PENNON_SERVER_GRPC_PORT: '0', PENNON_LOG_LEVEL: 'info', PENNON_LOG_ENCODING: 'json', PENNON_SERVER_WORKERS: '1' }, '');
    const times: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const started = performance.now();
      const res = await fetch(`${server.url}/api/v1/flags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: `flag-${i}`, name: `Flag ${i}` }) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`create answered ${res.status}`);
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    if (server) {
      const exited = new Promise((r) => server!.child.on('exit', r));
      server.child.kill('SIGTERM');
      await exited;
    }
  }
}

function importing(dbUrl: string, file: string): number {
  const started = performance.now();
  execFileSync(BIN, ['flag', 'import', file], { env: { ...process.env, PENNON_DB_URL: dbUrl, PENNON_LOG_LEVEL: 'error' }, stdio: ['ignore', 'ignore', 'pipe'] });
  return performance.now() - started;
}

export async function durabilityBench(): Promise<{ results: DurabilityResult[]; filesystem: string }> {
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'pennon-bench-durability-'));
  try {
    const filesystem = execFileSync('df', ['--output=fstype', dir], { encoding: 'utf8' }).split('\n')[1]?.trim() ?? '?';
    const file = join(dir, 'flags.yml');
    writeFileSync(file, bigDocument(10_000));
    const samples = new Map<Mode, { creates: number[][]; imports: number[] }>(MODES.map((m) => [m, { creates: [], imports: [] }]));
    for (let round = 0; round < 3; round++) {
      for (const mode of MODES) {
        const s = samples.get(mode)!;
        s.creates.push(await creates(`file:${join(dir, `creates-${mode}-${round}.db`)}?_synchronous=${mode}`));
        s.imports.push(importing(`file:${join(dir, `import-${mode}-${round}.db`)}?_synchronous=${mode}`, file));
      }
    }
    const results = MODES.map((mode): DurabilityResult => {
      const s = samples.get(mode)!;
      return {
        mode,
        createMeanMs: median(s.creates.map((t) => t.reduce((a, b) => a + b, 0) / t.length)),
        createP50Ms: median(s.creates.map((t) => percentile(t, 0.5))),
        createP99Ms: median(s.creates.map((t) => percentile(t, 0.99))),
        importMs: median(s.imports),
      };
    });
    return { results, filesystem };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
