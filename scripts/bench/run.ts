import { auditCostBench, auditUpdateBench } from './audit-cost';
import { authCostBench } from './auth-cost';
import { auditDeliveryBench } from './audit-delivery';
import { evaluatorBench } from './evaluator';
import { durabilityBench } from './durability';
import { grpcBench } from './grpc';
import { httpBench, type HttpResult } from './http';
import { instructionBench } from './instructions';
import { rebuildBench } from './rebuild';
import { scaleBench } from './scale';
import { scrapeBench } from './scrape';
import { startupBench } from './startup';
import { streamsBench } from './streams';
import { workersBench } from './workers';

/**
 * `npm run bench`: every benchmark, reported as figures and as ratios against a baseline
 * measured in the same run (these machines are noisy; compare ratios, not absolute times).
 * Select with arguments: evaluator, rebuild, http, grpc, startup, scrape, workers, durability, streams (default: all),
 * and, only when named: audit (audit delivery throughput), audit-cost (the trail's cost on writes,
 * against BENCH_AUDIT_BASELINE), auth-cost (authentication and roles on the evaluation hot path, against
 * BENCH_AUTH_BASELINE), scale (BENCH_SCALE_FLAGS=1000,10000,100000; minutes per size) and
 * instructions (it runs the server under valgrind for ~10 minutes).
 */
async function main(): Promise<void> {
  const only = new Set(process.argv.slice(2));
  const want = (name: string) => only.size === 0 || only.has(name);

  if (want('evaluator')) {
    console.log('\n## In-process evaluator (target ≥ 2,000,000 evaluations/s)');
    for (const r of await evaluatorBench()) console.log(`${r.label.padEnd(52)} ${r.perSecond.toLocaleString('en-US').padStart(12)} /s`);
  }
  if (want('rebuild')) {
    console.log('\n## Snapshot rebuild, 10,000 flags (8,000 variant + 2,000 boolean) (target ≤ 200 ms)');
    const r = await rebuildBench();
    console.log(`full rebuild: load ${r.loadMs.toFixed(1)} ms + compile ${r.compileMs.toFixed(1)} ms = ${r.totalMs.toFixed(1)} ms (median of 5)`);
    console.log(`after a local write: patch ${r.patchMs.toFixed(2)} ms (median of 7)`);
  }
  if (want('startup')) {
    console.log('\n## The executable (targets: /health ≤ 500 ms, evaluate ≤ 300 ms, import of 10,000 flags ≤ 5 s)');
    const r = await startupBench();
    console.log(`exec → /health SERVING, fresh database: ${r.healthMs.toFixed(0)} ms (median of 5)`);
    console.log(`pennon evaluate, whole process, in-process: ${r.evaluateMs.toFixed(0)} ms (median of 5)`);
    console.log(`pennon flag import, 10,000 flags (2 variants, 1 rule, 2 distributions each): ${r.importMs.toFixed(0)} ms in-process, ${r.importHttpMs.toFixed(0)} ms with --address (bulk import route; ${(r.importHttpMs / r.importMs).toFixed(2)}×)`);
  }
  if (want('http')) {
    console.log('\n## HTTP evaluation against bare routes of the same shapes, wrk on its own core (targets: Fastify CPU ÷ Pennon CPU ≥ 0.85 variant, ≥ 0.95 boolean; p99 ≤ 1.2×)');
    const { comparisons, noMetrics, metricsCpuCost } = await httpBench(Number(process.env.BENCH_SECONDS ?? 10));
    const line = (r: HttpResult) => `${r.label.padEnd(40)} ${String(r.requestsPerSecond).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  server CPU ${r.cpuMicrosPerRequest.toFixed(1)} µs/req  errors ${r.errors}`;
    for (const c of comparisons) {
      for (const r of [c.raw, c.fastify, c.pennon]) console.log(line(r));
      console.log(`  ${c.surface}: CPU ratio (Fastify ÷ Pennon) ${c.cpuRatio.toFixed(3)}   p99 ratio ${c.p99Ratio.toFixed(2)}`);
    }
    console.log(line(noMetrics));
    console.log(`metrics cost ${(metricsCpuCost * 100).toFixed(1)}% of server CPU per variant request (medians of 3 rounds)`);
  }
  if (want('grpc')) {
    console.log('\n## A variant evaluation over gRPC against the HTTP fast lane, one process, wrk and h2load on their own core, 10 connections / streams (target: gRPC CPU per request ≤ HTTP\'s)');
    const { http, grpc, bareGrpcJs, bareHttp2, cpuRatio } = await grpcBench(Number(process.env.BENCH_SECONDS ?? 10));
    for (const r of [http, grpc, bareGrpcJs, bareHttp2]) console.log(`${r.label.padEnd(28)} ${String(r.requestsPerSecond).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  server CPU ${r.cpuMicrosPerRequest.toFixed(1)} µs/req  errors ${r.errors}`);
    console.log(`CPU ratio (HTTP ÷ gRPC) ${cpuRatio.toFixed(3)} (medians of 3 alternating rounds)`);
  }
  if (want('scrape')) {
    console.log('\n## Evaluations while /metrics is scraped every second, 10,000 flags with series (target: p99 within 1.2× of unscraped)');
    const r = await scrapeBench(Number(process.env.BENCH_SECONDS ?? 10));
    for (const x of [r.unscraped, r.scraped]) {
      const scrapes = x.scraped ? `  ${x.scrapes} scrapes of ${(x.scrapeBytes / 1e6).toFixed(1)} MB, ${x.scrapeMs.toFixed(0)} ms each` : '';
      console.log(`${(x.scraped ? 'scraped every second' : 'not scraped').padEnd(22)} ${String(x.requestsPerSecond).padStart(7)} req/s  p50 ${x.p50Ms.toFixed(2)} ms  p99 ${x.p99Ms.toFixed(2)} ms  max ${x.maxMs.toFixed(1)} ms  server CPU ${x.cpuMicrosPerRequest.toFixed(1)} µs/req  errors ${x.errors}${scrapes}`);
    }
    console.log(`p99 ratio ${r.p99Ratio.toFixed(2)}   throughput ratio ${r.throughputRatio.toFixed(3)}   server CPU per request ratio ${r.cpuRatio.toFixed(3)} (median rounds)`);
  }
  if (want('workers')) {
    console.log('\n## serve with 1 process against 2 workers (server.workers), wrk sharing the cores (target: ≥ 1.3× throughput)');
    const { one, two, throughputRatio } = await workersBench(Number(process.env.BENCH_SECONDS ?? 10));
    for (const r of [one, two]) console.log(`${String(r.workers).padStart(2)} worker(s)  ${String(r.requestsPerSecond).padStart(7)} req/s  p50 ${r.p50Ms.toFixed(2)} ms  p99 ${r.p99Ms.toFixed(2)} ms  server CPU ${r.cpuMicrosPerRequest.toFixed(1)} µs/req (all processes)  errors ${r.errors}`);
    console.log(`throughput ratio ${throughputRatio.toFixed(2)} (medians of 3 alternating rounds)`);
  }
  if (want('streams')) {
    console.log('\n## Live streams: OFREP SSE clients and flagd EventStreams held by one instance, a write → every client notified (targets: 10,000 held; p99 ≤ 1 s)');
    for (const r of await streamsBench()) {
      const rss = Number.isNaN(r.rssPer1000Mb) ? '' : `  RSS ${r.rssBeforeMb.toFixed(0)} → ${r.rssAfterMb.toFixed(0)} MB (${r.rssPer1000Mb.toFixed(1)} MB per 1,000)`;
      console.log(`${r.kind.padEnd(4)} ${String(r.clients).padStart(6)} clients  notified ${r.received}/${r.expected}  p50 ${r.p50Ms.toFixed(1)} ms  p99 ${r.p99Ms.toFixed(1)} ms  max ${r.maxMs.toFixed(1)} ms${rss}`);
    }
  }
  if (only.has('audit-cost')) {
    console.log('\n## The audit trail\'s cost on writes: `pennon flag import` of 10,000 flags, whole process, alternating builds (medians)');
    const { results, baseline } = await auditCostBench();
    if (!baseline) console.log('(no baseline: set BENCH_AUDIT_BASELINE to the executable of a build without the audit trail, e.g. built from commit 93c9de8)');
    for (const r of results) {
      const ratio = (ms: number) => (r.baselineMs ? ` (${(ms / r.baselineMs).toFixed(2)}×)` : '');
      const base = r.baselineMs === null ? '' : `without the trail ${r.baselineMs.toFixed(0)} ms   `;
      console.log(`${r.database.padEnd(10)} ${base}with it ${r.auditedMs.toFixed(0)} ms${ratio(r.auditedMs)}   with it and a webhook sink (outbox rows) ${r.withSinkMs.toFixed(0)} ms${ratio(r.withSinkMs)}`);
    }
    console.log('1,000 sequential flag updates over HTTP (PUT /api/v1/flags/f), SQLite, medians of 3 alternating rounds:');
    for (const r of await auditUpdateBench()) console.log(`  ${r.label.padEnd(18)} p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`);
  }
  if (only.has('auth-cost')) {
    console.log('\n## Authentication and roles on the hot path: POST /evaluate/v1/variant with a bearer token, wrk on its own core (medians of 3 by server CPU per request)');
    const { results, baseline } = await authCostBench(Number(process.env.BENCH_SECONDS ?? 10));
    if (!baseline) console.log('(no baseline: set BENCH_AUTH_BASELINE to the executable of a build without roles, e.g. built from commit a6be50c)');
    const reference = results.find((r) => r.label.startsWith('without roles')) ?? results[1];
    for (const { label, result: r } of results) {
      const ratio = (r.cpuMicrosPerRequest / reference.result.cpuMicrosPerRequest).toFixed(3);
      console.log(`${label.padEnd(46)} ${String(r.requestsPerSecond).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  ${r.cpuMicrosPerRequest.toFixed(1)} µs CPU/req (${ratio}× ${reference.label})`);
    }
  }
  if (want('durability')) {
    console.log('\n## SQLite synchronous=FULL (default) against NORMAL: 1,000 sequential flag creates over HTTP, import of 10,000 flags');
    const { results, filesystem } = await durabilityBench();
    for (const r of results) {
      console.log(`${r.mode.padEnd(7)} create mean ${r.createMeanMs.toFixed(2)} ms  p50 ${r.createP50Ms.toFixed(2)} ms  p99 ${r.createP99Ms.toFixed(2)} ms   import ${r.importMs.toFixed(0)} ms`);
    }
    const [full, normal] = results;
    console.log(`FULL/NORMAL: create mean ${(full.createMeanMs / normal.createMeanMs).toFixed(2)}×, import ${(full.importMs / normal.importMs).toFixed(2)}× (on ${filesystem}; medians of 3 rounds)`);
  }
  if (only.has('audit')) {
    console.log(`\n## Audit delivery: a backlog of events delivered from the outbox (${process.env.BENCH_DB_URL ? 'BENCH_DB_URL' : 'SQLite file, synchronous=FULL'}), per sink and audit.buffer.capacity`);
    for (const r of await auditDeliveryBench()) console.log(`${r.label.padEnd(32)} ${r.events.toLocaleString('en-US').padStart(6)} events in ${(r.ms / 1000).toFixed(2)} s  ${r.perSecond.toLocaleString('en-US').padStart(7)} events/s`);
  }
  if (only.has('scale')) {
    const sizes = (process.env.BENCH_SCALE_FLAGS ?? '1000,10000').split(',').map(Number);
    console.log(`\n## Scale: ${sizes.join(' / ')} flags of 3 variants and 10 rules over 100 segments of 3 constraints (targets: stalls ≤ 50 ms; RSS ≤ 200 MB at 10k, ≤ 1.2 GB at 100k; import of 10k ≤ 5 s)`);
    for (const flags of sizes) {
      const r = await scaleBench(flags);
      console.log(`${flags.toLocaleString('en-US')} flags: document ${r.documentMb.toFixed(1)} MB, flag import ${(r.importMs / 1000).toFixed(2)} s (peak RSS ${r.importPeakRssMb.toFixed(0)} MB); start → SERVING ${(r.servingMs / 1000).toFixed(2)} s; RSS ${r.rssMb.toFixed(0)} MB at SERVING, ${r.settledRssMb.toFixed(0)} MB settled (peak ${r.peakRssMb.toFixed(0)} MB); probe p50 ${r.probeP50Ms.toFixed(2)} ms`);
      for (const e of r.events) console.log(`  ${e.event.padEnd(58)} ${e.ms.toFixed(0).padStart(7)} ms  longest evaluation ${e.stallMs.toFixed(1).padStart(7)} ms, server loop delay ${e.loopMs.toFixed(0).padStart(5)} ms${e.bytes === undefined ? '' : `  ${(e.bytes / 1e6).toFixed(2)} MB`}`);
    }
  }
  if (only.has('instructions')) {
    console.log('\n## What metrics cost an evaluation request, in instructions (valgrind; target: a few percent)');
    const r = await instructionBench();
    const fmt = (xs: number[]) => xs.map((x) => Math.round(x).toLocaleString('en-US')).join(', ');
    console.log(`instructions per request, metrics on: ${fmt(r.on)}; off: ${fmt(r.off)}; cost ${(r.cost * 100).toFixed(1)}%`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
