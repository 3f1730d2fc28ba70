import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { median, resultOf, startProcess, cpuMicros, type HttpResult } from './http';
import { HTTP_SHAPE, matchingContext, seededDatabase } from './seed';
import { postScript, SERVER_CPUS, wrk } from './wrk';

/**
 * What authentication and roles cost the evaluation hot path: `POST /evaluate/v1/variant` with a
 * bearer token under `authentication.required`, by a build without roles (BENCH_AUTH_BASELINE:
 * its executable, e.g. one built from commit a6be50c), by this build with `authorization.required`
 * off, and by this build with it on (the caller's role checked per request) — and this build with
 * no authentication at all, for scale. Servers pinned to BENCH_SERVER_CPUS, wrk to
 * BENCH_LOAD_CPUS, 10 connections; alternating rounds, medians of 3 by server CPU per request.
 */
const BIN = resolve(__dirname, '../pennon');
const TOKEN = 'pennon-bench-auth-token';

export interface AuthCostResult {
  label: string;
  result: HttpResult;
}

export async function authCostBench(seconds = 10): Promise<{ results: AuthCostResult[]; baseline: boolean }> {
  const { dir, dbUrl } = await seededDatabase(HTTP_SHAPE, 'pennon-bench-auth-');
  const children: ChildProcess[] = [];
  const baselineBin = process.env.BENCH_AUTH_BASELINE ?? '';
  const env = {
    PENNON_DB_URL: dbUrl,
    PENNON_SERVER_HOST: '127.0.0.1',
    PENNON_SERVER_HTTP_PORT: '0',
    PENNON_SERVER_GRPC_PORT: '0',
    PENNON_SERVER_WORKERS: '1',
    PENNON_LOG_LEVEL: 'info',
    PENNON_LOG_ENCODING: 'json',
  };
  const secured = { ...env, PENNON_AUTHENTICATION_REQUIRED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: TOKEN };
  const start = async (bin: string, extra: Record<string, string>) => {
    const server = await startProcess(bin, ['serve'], extra, SERVER_CPUS);
    children.push(server.child);
    return server;
  };
  try {
    const context = matchingContext(HTTP_SHAPE);
    const body = JSON.stringify({ namespaceKey: 'default', flagKey: 'flag-0', entityId: 'user-1234', context });
    const open = postScript(dir, 'variant-open', '/evaluate/v1/variant', body);
    const bearer = postScript(dir, 'variant-bearer', '/evaluate/v1/variant', body, { Authorization: `Bearer ${TOKEN}` });
    const targets: { label: string; server: { url: string; child: ChildProcess }; script: string }[] = [];
    // One server at a time writes the bootstrap token: the first secured one, before the others start.
    targets.push({ label: 'this build, authorization.required: true', server: await start(BIN, { ...secured, PENNON_AUTHORIZATION_REQUIRED: 'true' }), script: bearer });
    targets.push({ label: 'this build, authorization.required: false', server: await start(BIN, secured), script: bearer });
    if (baselineBin !== '') targets.push({ label: 'without roles (BENCH_AUTH_BASELINE)', server: await start(baselineBin, secured), script: bearer });
    targets.push({ label: 'this build, authentication off', server: await start(BIN, env), script: open });
    const load = async (t: (typeof targets)[number], s: number) => {
      const before = cpuMicros(t.server.child.pid!);
      const r = await wrk(t.server.url, t.script, s);
      if (r.errors > 0) throw new Error(`${t.label}: ${r.errors} errors (is the token accepted?)`);
      return resultOf(t.label, r, cpuMicros(t.server.child.pid!) - before);
    };
    for (const t of targets) await load(t, 2); // JIT warm-up
    const runs = new Map<string, HttpResult[]>();
    for (let round = 0; round < 3; round++) {
      for (const t of targets) runs.set(t.label, [...(runs.get(t.label) ?? []), await load(t, seconds)]);
    }
    return { results: targets.map((t) => ({ label: t.label, result: median(runs.get(t.label)!) })), baseline: baselineBin !== '' };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
