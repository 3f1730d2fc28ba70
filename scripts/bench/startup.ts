import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The executable as a user meets it: exec → /health SERVING on a fresh database, a whole
 * in-process `pennon evaluate`, and a whole `pennon flag import` of 10,000 flags (two variants,
 * one rule with a 50/50 split each, one shared segment), in-process and with --address into a
 * running server (its bulk import route); medians of several runs.
 */
const BIN = resolve(__dirname, '../pennon');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs `pennon serve` on a fresh database until `use` is done; `use` gets the time to /health SERVING. */
async function serving<T>(dir: string, port: number, use: (healthMs: number) => T | Promise<T>): Promise<T> {
  const started = performance.now();
  const child = spawn(BIN, ['serve'], {
    env: { ...process.env, PENNON_DB_URL: `file:${join(dir, `db-${port}.sqlite`)}`, PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: String(port), PENNON_SERVER_GRPC_PORT: '0', PENNON_LOG_LEVEL: 'error' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return await use(performance.now() - started);
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
  }
}

function run(args: string[], env: Record<string, string>): number {
  const started = performance.now();
  execFileSync(BIN, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  return performance.now() - started;
}

/** A Flipt export of `flags` flags (two variants, one rule with a 50/50 split each, one shared segment). */
export function bigDocument(flags: number): string {
  const lines = ['version: "1.4"', 'namespace: default', 'flags:'];
  for (let i = 0; i < flags; i++) {
    lines.push(
      `- key: flag_${i}`,
      `  name: Flag ${i}`,
      '  enabled: true',
      '  variants:',
      '  - key: control',
      '  - key: treatment',
      '    attachment: {color: blue}',
      '  rules:',
      '  - segment: everyone',
      '    distributions:',
      '    - {variant: control, rollout: 50}',
      '    - {variant: treatment, rollout: 50}',
    );
  }
  lines.push('segments:', '- key: everyone', '  name: Everyone');
  return `${lines.join('\n')}\n`;
}

export async function startupBench(): Promise<{ healthMs: number; evaluateMs: number; importMs: number; importHttpMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-startup-'));
  try {
    const health: number[] = [];
    for (let i = 0; i < 5; i++) health.push(await serving(dir, 18900 + i, (ms) => ms));

    const env = { PENNON_DB_URL: `file:${join(dir, 'eval.sqlite')}`, PENNON_LOG_LEVEL: 'error' };
    const file = join(dir, 'flags.yml');
    writeFileSync(file, bigDocument(10_000));
    const importMs = run(['flag', 'import', file], env);
    const importHttpMs = await serving(dir, 18910, () => run(['flag', 'import', file, '--address', 'http://127.0.0.1:18910'], {}));
    const evaluate: number[] = [];
    for (let i = 0; i < 5; i++) evaluate.push(run(['evaluate', 'flag_42', '-e', `user-${i}`], env));
    return { healthMs: median(health), evaluateMs: median(evaluate), importMs, importHttpMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether the executable exists (benchmarks build it first). */
export function haveBinary(): boolean {
  try {
    execFileSync(BIN, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
