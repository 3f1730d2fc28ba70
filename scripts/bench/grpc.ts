import { execFile, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { encodeMessage } from '../../internal/server/grpc/codec';
import { protoRoot } from '../../internal/server/grpc/protos';
import { cpuMicros, startProcess, type HttpResult } from './http';
import { HTTP_SHAPE, matchingContext, seededDatabase } from './seed';
import { LOAD_CPUS, postScript, SERVER_CPUS, wrk } from './wrk';

/**
 * A variant evaluation over gRPC (flipt.evaluation.EvaluationService/Variant) against the same
 * over HTTP's fast lane, on one Pennon process pinned to BENCH_SERVER_CPUS: wrk (10 connections)
 * and grpc-load.ts (10 calls in flight on one channel) on BENCH_LOAD_CPUS; rounds alternate,
 * medians of 3 by server CPU per request.
 */

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

const median = (xs: HttpResult[]): HttpResult => [...xs].sort((a, b) => a.cpuMicrosPerRequest - b.cpuMicrosPerRequest)[Math.floor(xs.length / 2)];

export async function grpcBench(seconds = 10): Promise<{ http: HttpResult; grpc: HttpResult; cpuRatio: number }> {
  const { dir, dbUrl } = await seededDatabase(HTTP_SHAPE);
  const cli = resolve(__dirname, '../pennon');
  let server: { child: ChildProcess; url: string } | undefined;
  try {
    const grpcPort = await freePort();
    server = await startProcess(cli, ['serve'], {
      PENNON_DB_URL: dbUrl,
      PENNON_SERVER_HOST: '127.0.0.1',
      PENNON_SERVER_HTTP_PORT: '0',
      PENNON_SERVER_GRPC_PORT: String(grpcPort),
      PENNON_SERVER_WORKERS: '1',
      PENNON_LOG_LEVEL: 'info',
      PENNON_LOG_ENCODING: 'json',
    }, SERVER_CPUS);
    const pid = server.child.pid!;
    const body = { namespaceKey: 'default', flagKey: 'flag-0', entityId: 'user-1234', context: matchingContext(HTTP_SHAPE) };
    const script = postScript(dir, 'grpc-bench-variant', '/evaluate/v1/variant', JSON.stringify(body));
    const root = await protoRoot();
    const request = encodeMessage(root.lookupType('flipt.evaluation.EvaluationRequest'), body).toString('base64');

    const overHttp = async (secs: number): Promise<HttpResult> => {
      const before = cpuMicros(pid);
      const r = await wrk(server!.url, script, secs);
      return result('HTTP fast lane, variant', r, cpuMicros(pid) - before);
    };
    const overGrpc = async (secs: number): Promise<HttpResult> => {
      const before = cpuMicros(pid);
      const { stdout } = await promisify(execFile)('taskset', ['-c', LOAD_CPUS, process.execPath, resolve(__dirname, 'grpc-load.cjs')], {
        env: { ...process.env, GRPC_ADDRESS: `127.0.0.1:${grpcPort}`, GRPC_PATH: '/flipt.evaluation.EvaluationService/Variant', GRPC_REQUEST: request, GRPC_SECONDS: String(secs), GRPC_CALLS_IN_FLIGHT: '10' },
      });
      return result('gRPC Variant', JSON.parse(stdout), cpuMicros(pid) - before);
    };
    await overHttp(2);
    await overGrpc(2);
    const runs = { http: [] as HttpResult[], grpc: [] as HttpResult[] };
    for (let round = 0; round < 3; round++) {
      runs.http.push(await overHttp(seconds));
      runs.grpc.push(await overGrpc(seconds));
    }
    const http = median(runs.http);
    const grpc = median(runs.grpc);
    return { http, grpc, cpuRatio: http.cpuMicrosPerRequest / grpc.cpuMicrosPerRequest };
  } finally {
    server?.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

function result(label: string, r: { requests: number; errors: number; durationUs: number; p50Us: number; p99Us: number }, cpu: number): HttpResult {
  return {
    label,
    requestsPerSecond: Math.round(r.requests / (r.durationUs / 1e6)),
    p50: r.p50Us / 1000,
    p99: r.p99Us / 1000,
    errors: r.errors,
    cpuMicrosPerRequest: cpu / Math.max(r.requests, 1),
  };
}
