import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAuditDelivery } from '../../internal/audit';
import { loadConfig } from '../../internal/config';
import { systemClock } from '../../internal/core';
import { compose } from '../../internal/service/compose';
import type { NamespaceBatch } from '../../internal/storage';
import { silentLogger } from '../../internal/telemetry';

/**
 * Audit delivery throughput (issue 20's closing figure): a backlog of BENCH_AUDIT_EVENTS events
 * (default 5,000) written in one batch with no deliverer running, then the deliverer started and
 * timed until the sink's outbox is empty. Sinks: Flipt's webhook to a receiver on loopback (a
 * process of its own answering 200), with and without its signature, and the log sink to a
 * file; audit.buffer.capacity 2 (Flipt's default) and 10 (its maximum). SQLite file in
 * BENCH_DIR (default the temporary folder), synchronous=FULL (each acknowledgement syncs), or
 * BENCH_DB_URL. Each case on a fresh database.
 */

export interface AuditDeliveryResult {
  label: string;
  events: number;
  ms: number;
  perSecond: number;
}

const RECEIVER = `
const http = require('node:http');
let n = 0;
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => { n++; res.writeHead(200).end(); }); });
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

async function startReceiver(): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`the receiver exited (${code})`)));
  });
  return { port, child };
}

function batchOf(events: number, round: number): NamespaceBatch {
  return {
    flags: Array.from({ length: events }, (_, i) => ({
      input: { key: `r${round}-f${i}`, name: `Flag ${i}`, description: '', enabled: i % 2 === 0, type: 'BOOLEAN_FLAG_TYPE' as const, metadata: null },
      variants: [],
      defaultVariant: null,
      rules: [],
      rollouts: [],
    })),
    segments: [],
  };
}

async function measure(label: string, env: Record<string, string>, events: number, round: number): Promise<AuditDeliveryResult> {
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'pennon-audit-bench-'));
  try {
    const dbUrl = process.env.BENCH_DB_URL ?? `file:${join(dir, 'pennon.db')}`;
    const { config } = loadConfig({ env: { PENNON_DB_URL: dbUrl, ...env, PENNON_AUDIT_SINKS_LOG_FILE: join(dir, 'audit.log') } });
    const services = await compose(config, { only: 'database', database: 'prepared' });
    try {
      await services.store.createBatch('default', batchOf(events, round));
      const sink = config.audit.sinks.log.enabled ? 'log' : 'webhook';
      const waiting = async () => (await services.store.auditBacklog()).find((b) => b.sink === sink)?.count ?? 0;
      const backlog = await waiting();
      const started = performance.now();
      const delivery = await startAuditDelivery({ audit: config.audit, store: services.store, clock: systemClock(), logger: silentLogger(), metrics: null, retentionFirstRunMs: 3_600_000 });
      while ((await waiting()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const ms = performance.now() - started;
      await delivery.close();
      if (sink === 'log') {
        const lines = readFileSync(join(dir, 'audit.log'), 'utf8').split('\n').filter(Boolean).length;
        if (lines < backlog) throw new Error(`the log holds ${lines} of ${backlog} events`);
      }
      return { label, events: backlog, ms, perSecond: Math.round((backlog / ms) * 1000) };
    } finally {
      await services.close();
    }
  } finally {
    if (!process.env.BENCH_DB_URL) rmSync(dir, { recursive: true, force: true });
  }
}

export async function auditDeliveryBench(): Promise<AuditDeliveryResult[]> {
  const events = Number(process.env.BENCH_AUDIT_EVENTS ?? 5000);
  const receiver = await startReceiver();
  const url = `http://127.0.0.1:${receiver.port}/hook`;
  const webhook = { PENNON_AUDIT_SINKS_WEBHOOK_ENABLED: 'true', PENNON_AUDIT_SINKS_WEBHOOK_URL: url, PENNON_AUDIT_SINKS_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' };
  const results: AuditDeliveryResult[] = [];
  let round = 0;
  try {
    for (const capacity of ['2', '10']) {
      const buffer = { PENNON_AUDIT_BUFFER_CAPACITY: capacity };
      results.push(await measure(`webhook, capacity ${capacity}`, { ...webhook, ...buffer }, events, round++));
      results.push(await measure(`webhook signed, capacity ${capacity}`, { ...webhook, ...buffer, PENNON_AUDIT_SINKS_WEBHOOK_SIGNING_SECRET: 'bench-secret' }, events, round++));
      results.push(await measure(`log file, capacity ${capacity}`, { PENNON_AUDIT_SINKS_LOG_ENABLED: 'true', ...buffer }, events, round++));
    }
  } finally {
    receiver.child.kill();
  }
  return results;
}
