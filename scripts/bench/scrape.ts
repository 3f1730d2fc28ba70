import { execFileSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { get } from 'node:http';
import { resolve } from 'node:path';
import { cpuMicros, startProcess } from './http';
import { seededDatabase, type SeedShape } from './seed';
import { customScript, LOAD_CPUS, SERVER_CPUS, wrk } from './wrk';

/**
 * What a Prometheus scrape costs evaluations (issue 15, item 1): p99 evaluation latency with
 * /metrics scraped every second against none, in the same run, over 10,000 evaluated flags (the
 * default series: 4,000 flags' counters, latency per namespace — 1.0 MB; BENCH_SERVER_ENV, e.g.
 * `PENNON_METRICS_MAX_FLAG_SERIES=10000 PENNON_METRICS_PER_FLAG_LATENCY=true`, measures every
 * flag's detail: ~200,000 lines). The server is pinned to one
 * core (BENCH_SERVER_CPUS, default 0), wrk and this process (the scraper) to another
 * (BENCH_LOAD_CPUS, default 1), so the load generator never takes the server's CPU. wrk rotates
 * through the flags; rounds alternate, three each, and the medians are compared.
 * The load is paced (each of wrk's 16 connections waits BENCH_PACE_MS, default 4 ms, between
 * requests: a few thousand a second, the server's core far from full), because the question is
 * whether a scrape makes evaluations wait — with the core saturated, any work at all shows up
 * as queueing. BENCH_PACE_MS=0 saturates it: then the throughput ratio is the scrape's CPU cost.
 * BENCH_BINARY runs another build of `pennon` (e.g. an older one, for a before/after).
 */
const SHAPE: SeedShape = { namespace: 'default', flags: 10_000, booleanFlags: 0, rulesPerFlag: 1, constraintsPerSegment: 1, segments: 10 };
const PACE_MS = Number(process.env.BENCH_PACE_MS ?? 4);

export interface ScrapeRound {
  scraped: boolean;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  cpuMicrosPerRequest: number;
  scrapes: number;
  scrapeMs: number;
  scrapeBytes: number;
}

/** Each request evaluates the next flag (wrk's Lua), so every flag keeps its series moving. */
function wrkScript(dir: string): string {
  return customScript(
    dir,
    'rotate',
    `local i = 0
local headers = { ["Content-Type"] = "application/json" }
request = function()
  i = (i + 1) % ${SHAPE.flags}
  return wrk.format("POST", "/evaluate/v1/variant", headers, '{"namespaceKey":"default","flagKey":"flag-' .. i .. '","entityId":"user-' .. i .. '","context":{"plan":"plan-1"}}')
end
${PACE_MS > 0 ? `delay = function() return ${PACE_MS} end` : ''}`,
  );
}

/**
 * One scrape, every byte of the body read and dropped: node:http without decoding, because this
 * process shares wrk's core, and CPU spent here would delay wrk's own clock (fetch's web streams
 * and a whole-body copy cost several times as much, which showed up as evaluation latency).
 */
function scrapeOnce(url: string): Promise<number> {
  return new Promise((resolveBytes, reject) => {
    get(`${url}/metrics`, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolveBytes(bytes));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** Scrapes /metrics every second until stopped. */
function scraper(url: string): { stop(): Promise<{ scrapes: number; ms: number; bytes: number }> } {
  let running = true;
  const done = (async () => {
    let scrapes = 0;
    let ms = 0;
    let bytes = 0;
    while (running) {
      const started = performance.now();
      bytes = await scrapeOnce(url);
      const took = performance.now() - started;
      scrapes++;
      ms += took;
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - took)));
    }
    return { scrapes, ms: ms / Math.max(scrapes, 1), bytes };
  })();
  return {
    stop: async () => {
      running = false;
      return done;
    },
  };
}

async function round(server: { url: string; child: ChildProcess }, script: string, seconds: number, scraped: boolean): Promise<ScrapeRound> {
  const cpuBefore = cpuMicros(server.child.pid!);
  const scraping = scraped ? scraper(server.url) : null;
  const r = await wrk(server.url, script, seconds, 16);
  const s = (await scraping?.stop()) ?? { scrapes: 0, ms: 0, bytes: 0 };
  const cpu = cpuMicros(server.child.pid!) - cpuBefore;
  return {
    scraped,
    requestsPerSecond: Math.round(r.requests / (r.durationUs / 1e6)),
    p50Ms: r.p50Us / 1000,
    p99Ms: r.p99Us / 1000,
    maxMs: r.maxUs / 1000,
    errors: r.errors,
    cpuMicrosPerRequest: cpu / Math.max(r.requests, 1),
    scrapes: s.scrapes,
    scrapeMs: s.ms,
    scrapeBytes: s.bytes,
  };
}

/** BENCH_SERVER_ENV: `NAME=value` pairs, space-separated, for the server. */
function serverEnv(): Record<string, string> {
  const pairs = (process.env.BENCH_SERVER_ENV ?? '').split(/\s+/).filter(Boolean);
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

const median = <T>(xs: T[], by: (x: T) => number): T => [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)];

export async function scrapeBench(seconds = 10): Promise<{ unscraped: ScrapeRound; scraped: ScrapeRound; p99Ratio: number; throughputRatio: number; cpuRatio: number }> {
  // This process scrapes: keep it off the server's core too.
  execFileSync('taskset', ['-cp', LOAD_CPUS, String(process.pid)], { stdio: 'ignore' });
  const { dir, dbUrl } = await seededDatabase(SHAPE, 'pennon-bench-scrape-');
  const binary = process.env.BENCH_BINARY ?? resolve(__dirname, '../pennon');
  let server: { url: string; child: ChildProcess } | undefined;
  try {
    server = await startProcess(binary, ['serve'], { PENNON_DB_URL: dbUrl, PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: '0', PENNON_SERVER_GRPC_PORT: '0', PENNON_LOG_LEVEL: 'info', PENNON_LOG_ENCODING: 'json', PENNON_SERVER_WORKERS: '1', ...serverEnv() }, SERVER_CPUS);
    const script = wrkScript(dir);
    await wrk(server.url, script, 5, 16); // warm-up: every flag evaluated, so every flag has its series
    const rounds: ScrapeRound[] = [];
    for (let i = 0; i < 3; i++) {
      rounds.push(await round(server, script, seconds, false));
      rounds.push(await round(server, script, seconds, true));
    }
    const unscraped = median(rounds.filter((r) => !r.scraped), (r) => r.p99Ms);
    const scraped = median(rounds.filter((r) => r.scraped), (r) => r.p99Ms);
    return {
      unscraped,
      scraped,
      p99Ratio: scraped.p99Ms / unscraped.p99Ms,
      throughputRatio: scraped.requestsPerSecond / unscraped.requestsPerSecond,
      cpuRatio: scraped.cpuMicrosPerRequest / unscraped.cpuMicrosPerRequest,
    };
  } finally {
    server?.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
