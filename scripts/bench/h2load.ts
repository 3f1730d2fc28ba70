import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LOAD_CPUS, type WrkResult } from './wrk';

/**
 * h2load (Debian's nghttp2-client) as a gRPC load generator, pinned like wrk to the load
 * generator's cores: unary calls as HTTP/2 POSTs with gRPC's framing, `streams` in flight on one
 * connection, latencies from its per-request log. h2load reads only the HTTP status: the gRPC
 * status of the calls is the server's to report (its call metrics).
 */

/** A message's bytes framed as one gRPC request body (uncompressed flag, 4-byte length, message). */
export function grpcBodyFile(dir: string, name: string, message: Buffer): string {
  const file = join(dir, `${name}.grpc`);
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt8(0, 0);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  writeFileSync(file, frame);
  return file;
}

export async function h2load(url: string, bodyFile: string, seconds: number, streams = 10, cpus = LOAD_CPUS): Promise<WrkResult> {
  const log = `${bodyFile}.log`;
  writeFileSync(log, '');
  const args = ['h2load', '-c1', `-m${streams}`, `-D${seconds}`, '-d', bodyFile, '-H', 'content-type: application/grpc', '-H', 'te: trailers', `--log-file=${log}`, url];
  const { stdout } = await promisify(execFile)('taskset', ['-c', cpus, ...args], { maxBuffer: 16 * 1024 * 1024 });
  const done = /requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(stdout);
  const finished = /finished in ([\d.]+)(m?s)/.exec(stdout);
  if (!done || !finished) throw new Error(`h2load: unexpected output: ${stdout}`);
  // The log: start time (µs since the epoch), HTTP status, time to the response's end (µs).
  const latencies = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => Number(line.split('\t')[2]))
    .filter((n) => Number.isFinite(n))
    .sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const durationUs = Number(finished[1]) * (finished[2] === 'ms' ? 1000 : 1_000_000);
  const [, doneCount, , failed, errored, timeout] = done.map(Number);
  return { requests: doneCount, durationUs, p50Us: at(0.5), p99Us: at(0.99), maxUs: latencies[latencies.length - 1] ?? 0, errors: failed + errored + timeout };
}
