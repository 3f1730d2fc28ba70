import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bigDocument } from './startup';

/**
 * What the audit trail costs a write: `pennon flag import` of 10,000 flags (a whole process,
 * in-process on a fresh SQLite database — and PostgreSQL with BENCH_POSTGRES_URL), by this
 * build with no sink, by this build with a webhook sink (an outbox row per event too), and by a
 * build without the audit trail (BENCH_AUDIT_BASELINE: its executable, e.g. one built from the
 * commit before it), alternating, in one run; medians.
 */
const BIN = resolve(__dirname, '../pennon');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Sequential flag updates over HTTP against `serve` of `bin` on a fresh SQLite database: p50 and p99 ms. */
async function updateLatency(bin: string, dbUrl: string, port: number, count = 1000): Promise<{ p50: number; p99: number }> {
  const child = spawn(bin, ['serve'], {
    env: { ...process.env, PENNON_DB_URL: dbUrl, PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: String(port), PENNON_SERVER_GRPC_PORT: '0', PENNON_LOG_LEVEL: 'error' },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`serve on port ${port} did not become healthy within 30 s`);
      const healthy = await fetch(`${base}/health`).then((r) => r.ok, () => false);
      if (healthy) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const json = { 'content-type': 'application/json' };
    await fetch(`${base}/api/v1/flags`, { method: 'POST', headers: json, body: JSON.stringify({ key: 'f', name: 'F', type: 'VARIANT_FLAG_TYPE' }) });
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const res = await fetch(`${base}/api/v1/flags/f`, { method: 'PUT', headers: json, body: JSON.stringify({ name: `F ${i}`, enabled: i % 2 === 0 }) });
      await res.arrayBuffer();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { p50: times[Math.floor(count * 0.5)], p99: times[Math.floor(count * 0.99)] };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
  }
}

export interface UpdateLatencyResult {
  label: string;
  p50: number;
  p99: number;
}

/** 1,000 sequential `PUT /api/v1/flags/f` each, alternating the builds, medians of the rounds' p50 and p99. */
export async function auditUpdateBench(): Promise<UpdateLatencyResult[]> {
  const baseline = process.env.BENCH_AUDIT_BASELINE && existsSync(process.env.BENCH_AUDIT_BASELINE) ? process.env.BENCH_AUDIT_BASELINE : null;
  const dir = mkdtempSync(join(tmpdir(), 'pennon-audit-update-'));
  const builds = [...(baseline ? [{ label: 'without the trail', bin: baseline }] : []), { label: 'with it', bin: BIN }];
  const rounds = new Map(builds.map((b) => [b.label, [] as { p50: number; p99: number }[]]));
  try {
    for (let round = 0; round < 3; round++) {
      for (const [i, build] of builds.entries()) rounds.get(build.label)!.push(await updateLatency(build.bin, `file:${join(dir, `u${round}-${i}.sqlite`)}`, 18950 + round * 2 + i));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return builds.map((b) => ({ label: b.label, p50: median(rounds.get(b.label)!.map((r) => r.p50)), p99: median(rounds.get(b.label)!.map((r) => r.p99)) }));
}

export interface AuditCostResult {
  database: string;
  baselineMs: number | null;
  auditedMs: number;
  withSinkMs: number;
}

function importOnce(bin: string, file: string, env: Record<string, string>): number {
  const started = performance.now();
  execFileSync(bin, ['flag', 'import', file], { env: { ...process.env, PENNON_LOG_LEVEL: 'error', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  return performance.now() - started;
}

async function freshPostgres(admin: string, name: string): Promise<string> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    await client.query(`CREATE SCHEMA ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.searchParams.set('options', `-c search_path=${name}`);
  return url.toString();
}

export async function auditCostBench(): Promise<{ results: AuditCostResult[]; baseline: string | null }> {
  const baseline = process.env.BENCH_AUDIT_BASELINE && existsSync(process.env.BENCH_AUDIT_BASELINE) ? process.env.BENCH_AUDIT_BASELINE : null;
  const dir = mkdtempSync(join(tmpdir(), 'pennon-audit-cost-'));
  const file = join(dir, 'flags.yml');
  writeFileSync(file, bigDocument(10_000));
  // A sink nobody listens on: the import only writes its outbox rows (delivery is serve's job).
  const sink = { PENNON_AUDIT_SINKS_WEBHOOK_ENABLED: 'true', PENNON_AUDIT_SINKS_WEBHOOK_URL: 'http://127.0.0.1:9/audit', PENNON_AUDIT_SINKS_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' };
  const databases: { name: string; url: (run: string) => Promise<string> }[] = [{ name: 'SQLite', url: async (run) => `file:${join(dir, `${run}.sqlite`)}` }];
  const postgres = process.env.BENCH_POSTGRES_URL;
  if (postgres) databases.push({ name: 'PostgreSQL', url: (run) => freshPostgres(postgres, `bench_audit_${run}`) });
  const results: AuditCostResult[] = [];
  try {
    for (const database of databases) {
      const times: Record<'baseline' | 'audited' | 'sink', number[]> = { baseline: [], audited: [], sink: [] };
      for (let round = 0; round < ROUNDS; round++) {
        if (baseline) times.baseline.push(importOnce(baseline, file, { PENNON_DB_URL: await database.url(`b${round}`) }));
        times.audited.push(importOnce(BIN, file, { PENNON_DB_URL: await database.url(`a${round}`) }));
        times.sink.push(importOnce(BIN, file, { PENNON_DB_URL: await database.url(`s${round}`), ...sink }));
      }
      results.push({ database: database.name, baselineMs: baseline ? median(times.baseline) : null, auditedMs: median(times.audited), withSinkMs: median(times.sink) });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { results, baseline };
}
