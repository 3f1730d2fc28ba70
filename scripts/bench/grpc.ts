import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { encodeMessage } from '../../internal/server/grpc/codec';
import { protoRoot } from '../../internal/server/grpc/protos';
import { cpuMicros, median, resultOf, startProcess, type HttpResult } from './http';
import { grpcBodyFile, h2load } from './h2load';
import { HTTP_SHAPE, matchingContext, seededDatabase } from './seed';
import { postScript, SERVER_CPUS, wrk, type WrkResult } from './wrk';

/**
 * A variant evaluation over gRPC (flipt.evaluation.EvaluationService/Variant) against the same
 * over HTTP's fast lane, on one Pennon process pinned to BENCH_SERVER_CPUS, and against two
 * baselines answering the same method with a fixed response (bare-grpc.ts: on @grpc/grpc-js,
 * and on raw node:http2). Load on BENCH_LOAD_CPUS: wrk (10 connections) for HTTP, h2load (10
 * calls in flight on one connection, as an SDK's channel) for gRPC. Rounds alternate, medians of
 * 3 by server CPU per request. Pennon's gRPC calls are checked to have answered OK by the
 * server's own call counter.
 */

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });


export interface GrpcBench {
  http: HttpResult;
  grpc: HttpResult;
  bareGrpcJs: HttpResult;
  bareHttp2: HttpResult;
  /** HTTP's server CPU per request ÷ gRPC's (≥ 1: gRPC costs no more). */
  cpuRatio: number;
}

export async function grpcBench(seconds = 10): Promise<GrpcBench> {
  const { dir, dbUrl } = await seededDatabase(HTTP_SHAPE);
  const cli = resolve(__dirname, '../pennon');
  const children: ChildProcess[] = [];
  try {
    const grpcPort = await freePort();
    const pennon = await startProcess(cli, ['serve'], {
      PENNON_DB_URL: dbUrl,
      PENNON_SERVER_HOST: '127.0.0.1',
      PENNON_SERVER_HTTP_PORT: '0',
      PENNON_SERVER_GRPC_PORT: String(grpcPort),
      PENNON_SERVER_WORKERS: '1',
      PENNON_LOG_LEVEL: 'info',
      PENNON_LOG_ENCODING: 'json',
    }, SERVER_CPUS);
    children.push(pennon.child);
    const bareScript = resolve(__dirname, 'bare-grpc.cjs');
    const grpcJs = await startProcess(process.execPath, [bareScript], { BARE: 'grpc-js' }, SERVER_CPUS);
    children.push(grpcJs.child);
    const http2 = await startProcess(process.execPath, [bareScript], { BARE: 'http2' }, SERVER_CPUS);
    children.push(http2.child);

    const body = { namespaceKey: 'default', flagKey: 'flag-0', entityId: 'user-1234', context: matchingContext(HTTP_SHAPE) };
    const script = postScript(dir, 'grpc-bench-variant', '/evaluate/v1/variant', JSON.stringify(body));
    const root = await protoRoot();
    const request = grpcBodyFile(dir, 'variant', encodeMessage(root.lookupType('flipt.evaluation.EvaluationRequest'), body));
    const METHOD = '/flipt.evaluation.EvaluationService/Variant';
    const okCalls = async () => {
      const scrape = await (await fetch(`${pennon.url}/metrics`)).text();
      const m = /grpc_server_handled_total\{[^}]*grpc_method="Variant",grpc_code="OK"\} (\d+)/.exec(scrape);
      return m ? Number(m[1]) : 0;
    };

    const measure = async (label: string, child: ChildProcess, run: () => Promise<WrkResult>) => {
      const before = cpuMicros(child.pid!);
      const r = await run();
      return resultOf(label, r, cpuMicros(child.pid!) - before);
    };
    const pennonGrpc = async (secs: number): Promise<HttpResult> => {
      const okBefore = await okCalls();
      let requests = 0;
      const r = await measure('gRPC Variant', pennon.child, async () => {
        const x = await h2load(`http://127.0.0.1:${grpcPort}${METHOD}`, request, secs);
        requests = x.requests;
        return x;
      });
      // A failed call still has HTTP status 200: count those the server did not answer OK.
      return { ...r, errors: r.errors + Math.max(0, requests - ((await okCalls()) - okBefore)) };
    };
    const targets: { label: string; run: (secs: number) => Promise<HttpResult> }[] = [
      { label: 'HTTP fast lane', run: (secs) => measure('HTTP fast lane, variant', pennon.child, () => wrk(pennon.url, script, secs)) },
      { label: 'gRPC', run: pennonGrpc },
      { label: 'bare grpc-js', run: (secs) => measure('bare grpc-js Variant', grpcJs.child, () => h2load(`${grpcJs.url}${METHOD}`, request, secs)) },
      { label: 'bare node:http2', run: (secs) => measure('bare node:http2 Variant', http2.child, () => h2load(`${http2.url}${METHOD}`, request, secs)) },
    ];
    for (const t of targets) await t.run(2); // warm the JIT
    const runs = new Map<string, HttpResult[]>();
    for (let round = 0; round < 3; round++) {
      for (const t of targets) runs.set(t.label, [...(runs.get(t.label) ?? []), await t.run(seconds)]);
    }
    const [http, grpc, bareGrpcJs, bareHttp2] = targets.map((t) => median(runs.get(t.label)!));
    return { http, grpc, bareGrpcJs, bareHttp2, cpuRatio: http.cpuMicrosPerRequest / grpc.cpuMicrosPerRequest };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
