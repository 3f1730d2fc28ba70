import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { startProcess } from './http';
import { LOAD_CPUS, SERVER_CPUS } from './wrk';

/**
 * The scale bench (issue 16's table): a namespace of N flags of one shape — 3 variants and 10
 * rules over 100 shared segments of 3 constraints per flag — imported with `pennon flag import`
 * (one document, read in parts when large), then served by one process pinned to its core. A probe on the other core
 * evaluates one flag back to back and records every latency; each event below is timed, and the
 * longest evaluation while it ran is its stall. Every event runs in a process of its own on the
 * probe's core (curl, the executable), so that only the server's stalls are counted: a write by
 * another process (`flag import` of one flag, until evaluations see it), a /metrics scrape, the
 * client snapshot plain, gzip and br, `flag export --address` and `flag import --address` of
 * 1,000 flags into another namespace. RSS is read from /proc (VmRSS now, VmHWM the peak).
 */
const BIN = resolve(__dirname, '../pennon');
const SETTLE_MS = 40_000;

export interface ScaleEvent {
  event: string;
  ms: number;
  /** The longest evaluation the probe saw while the event ran. */
  stallMs: number;
  /**
   * The server's own figure: the longest event-loop delay while the event ran (prom-client's
   * nodejs_eventloop_lag_max_seconds, reset at each scrape; 10 ms resolution). Unlike the probe's,
   * it cannot include a delay of the probe's own process (the events' processes share its core).
   */
  loopMs: number;
  bytes?: number;
}

export interface ScaleResult {
  flags: number;
  documentMb: number;
  importMs: number;
  importPeakRssMb: number;
  servingMs: number;
  rssMb: number;
  peakRssMb: number;
  /** After SETTLE_MS without requests. */
  settledRssMb: number;
  probeP50Ms: number;
  events: ScaleEvent[];
}

/** One flag of the shape, as YAML lines of a Flipt document. */
function flagLines(i: number): string {
  const lines = [`- key: flag-${i}`, `  name: Flag ${i}`, '  enabled: true', '  variants:', '  - key: control', '  - key: treatment', '    attachment: {color: blue}', '  - key: holdout', '  rules:'];
  for (let r = 0; r < 10; r++) {
    lines.push(`  - segment: segment-${(i * 10 + r) % 100}`, '    distributions:', '    - {variant: control, rollout: 33}', '    - {variant: treatment, rollout: 33}', '    - {variant: holdout, rollout: 34}');
  }
  return `${lines.join('\n')}\n`;
}

function segmentLines(s: number): string {
  return [
    `- key: segment-${s}`,
    `  name: Segment ${s}`,
    '  match_type: ALL_MATCH_TYPE',
    '  constraints:',
    `  - {type: STRING_COMPARISON_TYPE, property: plan, operator: eq, value: plan-${s}}`,
    '  - {type: NUMBER_COMPARISON_TYPE, property: age, operator: gte, value: "18"}',
    '  - {type: BOOLEAN_COMPARISON_TYPE, property: beta, operator: "true"}',
  ].join('\n') + '\n';
}

/** Writes the document of flags `from`..`from + flags - 1` in namespace `namespace` to `file`, in pieces. */
export function writeShapeDocument(file: string, flags: number, namespace = 'default', from = 0): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, `version: "1.4"\nnamespace: ${namespace}\nflags:\n`);
    let chunk = '';
    for (let i = from; i < from + flags; i++) {
      chunk += flagLines(i);
      if (chunk.length > 1 << 20) (writeSync(fd, chunk), (chunk = ''));
    }
    chunk += 'segments:\n';
    for (let s = 0; s < 100; s++) chunk += segmentLines(s);
    writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}

function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** Runs the executable to completion, sampling its RSS every 20 ms; resolves with its time and peak. */
function runSampled(args: string[], env: Record<string, string>): Promise<{ ms: number; peakRssMb: number }> {
  return new Promise((resolveRun, reject) => {
    const started = performance.now();
    const child = spawn('taskset', ['-c', SERVER_CPUS, BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let peak = 0;
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setInterval(() => {
      try {
        peak = Math.max(peak, memoryMb(child.pid!).peak);
      } catch {
        // exited meanwhile
      }
    }, 20);
    child.on('exit', (code) => {
      clearInterval(timer);
      if (code === 0) resolveRun({ ms: performance.now() - started, peakRssMb: peak });
      else reject(new Error(`pennon ${args.join(' ')} exited ${code}: ${stderr.slice(0, 2000)}`));
    });
  });
}

/** Back-to-back evaluations of one flag, every latency kept with the time it ended. */
class Probe {
  private readonly samples: { at: number; ms: number }[] = [];
  private running = true;
  private done: Promise<void>;
  constructor(url: string) {
    const body = JSON.stringify({ namespaceKey: 'default', flagKey: 'flag-0', entityId: 'user-1', context: { plan: 'plan-9', age: '42', beta: 'true' } });
    this.done = (async () => {
      while (this.running) {
        const start = performance.now();
        const res = await request(`${url}/evaluate/v1/variant`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
        await res.body.dump();
        const end = performance.now();
        this.samples.push({ at: end, ms: end - start });
        if (res.statusCode !== 200) throw new Error(`probe answered ${res.statusCode}`);
      }
    })();
  }
  /** The longest evaluation that ended within [from, to] (a stall shows as the request that waited behind it). */
  longest(from: number, to: number): number {
    let worst = 0;
    for (const s of this.samples) if (s.at >= from && s.at <= to + 5 && s.ms > worst) worst = s.ms;
    return worst;
  }
  p50(): number {
    const xs = this.samples.map((s) => s.ms).sort((a, b) => a - b);
    return xs[Math.floor(xs.length / 2)] ?? 0;
  }
  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The server's longest event-loop delay since the previous scrape (ms). */
async function loopDelayMs(url: string): Promise<number> {
  const res = await request(`${url}/metrics`);
  const text = await res.body.text();
  const max = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text);
  return max ? Number(max[1]) * 1000 : NaN;
}

async function timed(probe: Probe, url: string, event: string, what: () => Promise<number | undefined>): Promise<ScaleEvent> {
  await pause(200); // a quiet stretch before, so the stall belongs to this event
  await loopDelayMs(url); // resets the server's maximum
  const from = performance.now();
  const bytes = await what();
  const to = performance.now();
  await pause(50);
  const loopMs = await loopDelayMs(url);
  return { event, ms: to - from, stallMs: probe.longest(from, to), loopMs, ...(bytes === undefined ? {} : { bytes }) };
}

/**
 * A GET read to its end by curl, in a process of its own on the load core: read here, a large
 * body's chunks would delay this process's probe and be counted as the server's stall.
 */
function fetchBytes(url: string, encoding: string): Promise<number> {
  return new Promise((resolveFetch, reject) =>
    execFile('taskset', ['-c', LOAD_CPUS, 'curl', '-sS', '-o', '/dev/null', '-H', `accept-encoding: ${encoding}`, '-w', '%{http_code} %{size_download}', url], (err, out) => {
      const [status, bytes] = String(out).split(' ');
      if (err || status !== '200') reject(new Error(`${url}: ${err?.message ?? `HTTP ${status}`}`));
      else resolveFetch(Number(bytes));
    }),
  );
}

function cli(args: string[], env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolveRun, reject) =>
    execFile('taskset', ['-c', LOAD_CPUS, BIN, ...args], { env: { ...process.env, ...env }, maxBuffer: 1 << 30 }, (err, _out, stderr) => (err ? reject(new Error(`${args.join(' ')}: ${stderr.slice(0, 2000)}`)) : resolveRun())),
  );
}

export async function scaleBench(flags: number): Promise<ScaleResult> {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-scale-'));
  const dbUrl = `file:${join(dir, 'scale.db')}`;
  try {
    // One document of every flag, imported and measured (a large one is read in parts).
    const file = join(dir, 'flags.yml');
    writeShapeDocument(file, flags);
    const documentBytes = statSync(file).size;
    const imported = await runSampled(['flag', 'import', file], { PENNON_DB_URL: dbUrl, PENNON_LOG_LEVEL: 'error' });

    const started = performance.now();
    const server = await startProcess(BIN, ['serve'], { PENNON_DB_URL: dbUrl, PENNON_SERVER_WORKERS: '1', PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: '0', PENNON_SERVER_GRPC_PORT: '0', PENNON_LOG_LEVEL: 'info', PENNON_LOG_ENCODING: 'json' }, SERVER_CPUS);
    const pid = server.child.pid!;
    try {
      while ((await request(`${server.url}/health`).then((r) => (r.body.dump(), r.statusCode))) !== 200) await pause(5);
      const servingMs = performance.now() - started;
      await pause(500);
      const memory = memoryMb(pid);
      const probe = new Probe(server.url);
      const events: ScaleEvent[] = [];
      try {
        events.push(
          await timed(probe, server.url, 'a write by another process, until evaluations see it', async () => {
            // `pennon flag import` of one new flag, in-process on the database: another process.
            const one = join(dir, 'one.yml');
            writeFileSync(one, 'version: "1.4"\nnamespace: default\nflags:\n- {key: written-elsewhere, name: Written elsewhere, enabled: true}\n');
            await cli(['flag', 'import', one], { PENNON_DB_URL: dbUrl, PENNON_LOG_LEVEL: 'error' });
            const ask = JSON.stringify({ namespaceKey: 'default', flagKey: 'written-elsewhere', entityId: 'u', context: {} });
            for (const deadline = performance.now() + 300_000; performance.now() < deadline; await pause(10)) {
              const res = await request(`${server.url}/evaluate/v1/variant`, { method: 'POST', body: ask, headers: { 'content-type': 'application/json' } });
              await res.body.dump();
              if (res.statusCode === 200) return undefined;
            }
            throw new Error('the write never reached the evaluations');
          }),
        );
        events.push(await timed(probe, server.url, '/metrics scrape', () => fetchBytes(`${server.url}/metrics`, 'identity')));
        for (const encoding of ['identity', 'gzip', 'br']) events.push(await timed(probe, server.url, `client snapshot (${encoding})`, () => fetchBytes(`${server.url}/internal/v1/evaluation/snapshot/namespace/default`, encoding)));
        events.push(await timed(probe, server.url, `flag export --address`, async () => (await cli(['flag', 'export', '--address', server.url, '-o', join(dir, 'export.yml')]), statSync(join(dir, 'export.yml')).size)));
        const small = join(dir, 'small.yml');
        writeShapeDocument(small, 1000, 'other');
        events.push(await timed(probe, server.url, 'flag import --address (1,000 flags, another namespace)', () => cli(['flag', 'import', small, '--address', server.url]).then(() => undefined)));
      } finally {
        await probe.stop();
      }
      const after = memoryMb(pid);
      // V8 gives a load's garbage back to the system only after some idle time (its memory reducer).
      await pause(SETTLE_MS);
      const settledRssMb = memoryMb(pid).rss;
      return {
        settledRssMb, flags, documentMb: documentBytes / 1e6, importMs: imported.ms, importPeakRssMb: imported.peakRssMb, servingMs, rssMb: memory.rss, peakRssMb: after.peak, probeP50Ms: probe.p50(), events };
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((r) => server.child.once('exit', r));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
