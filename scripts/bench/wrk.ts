import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * wrk, pinned with taskset to the load generator's cores (BENCH_LOAD_CPUS, default 1), so it
 * never takes the server's core: autocannon, in Node, costs about as much CPU as the server it
 * measures, which on two cores decides the result. Each run reports through a Lua `done` hook.
 */
export const LOAD_CPUS = process.env.BENCH_LOAD_CPUS ?? '1';
export const SERVER_CPUS = process.env.BENCH_SERVER_CPUS ?? '0';

export interface WrkResult {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
  /** Socket errors, timeouts and non-2xx/3xx answers. */
  errors: number;
}

const REPORT = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d\\n", summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max, e.connect + e.read + e.write + e.status + e.timeout))
end
`;

/** A Lua script that sends one POST body to `path` (JSON), with the result hook. */
export function postScript(dir: string, name: string, path: string, body: string, headers: Record<string, string> = {}): string {
  const file = join(dir, `${name}.lua`);
  const all = { 'Content-Type': 'application/json', ...headers };
  const lua = Object.entries(all)
    .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join('\n');
  writeFileSync(file, `wrk.method = "POST"\nwrk.path = ${JSON.stringify(path)}\nwrk.body = ${luaString(body)}\n${lua}\n${REPORT}`);
  return file;
}

/** A Lua script with its own `request`/`delay` functions (given as Lua source), with the result hook. */
export function customScript(dir: string, name: string, source: string): string {
  const file = join(dir, `${name}.lua`);
  writeFileSync(file, `${source}\n${REPORT}`);
  return file;
}

function luaString(text: string): string {
  // A long bracket string: no escapes needed unless the text holds its closing bracket.
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

/** `cpus`: where wrk runs ('' = anywhere, with two threads). */
export function wrk(url: string, script: string, seconds: number, connections = 10, cpus = LOAD_CPUS): Promise<WrkResult> {
  return new Promise((resolveRun, reject) => {
    const args = ['wrk', cpus === '' ? '-t2' : '-t1', `-c${connections}`, `-d${seconds}s`, '-s', script, url];
    const child = cpus === '' ? spawn(args[0], args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] }) : spawn('taskset', ['-c', cpus, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => {
      const m = /RESULT (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(out);
      if (code !== 0 || !m) return reject(new Error(`wrk exited with ${code}: ${out}`));
      const [requests, durationUs, p50Us, p99Us, maxUs, errors] = m.slice(1).map(Number);
      resolveRun({ requests, durationUs, p50Us, p99Us, maxUs, errors });
    });
  });
}
