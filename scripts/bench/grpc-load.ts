import { credentials, Client } from '@grpc/grpc-js';

/**
 * The gRPC load generator (run pinned to the load core, apart from the server): GRPC_CALLS_IN_FLIGHT
 * unary calls at all times on one channel — concurrent HTTP/2 streams, as an SDK's client keeps —
 * for GRPC_SECONDS, each call's request bytes sent as given (base64 in GRPC_REQUEST) and its
 * answer left undecoded, so that the generator spends as little as it can. Prints
 * {requests, errors, durationUs, p50Us, p99Us} as JSON.
 */
const address = process.env.GRPC_ADDRESS!;
const path = process.env.GRPC_PATH!;
const request = Buffer.from(process.env.GRPC_REQUEST!, 'base64');
const inFlight = Number(process.env.GRPC_CALLS_IN_FLIGHT ?? 10);
const seconds = Number(process.env.GRPC_SECONDS ?? 10);

const client = new Client(address, credentials.createInsecure());
const identity = (b: Buffer) => b;
const latencies: number[] = [];
let errors = 0;
let stopAt = 0;
let running = 0;

function call(done: () => void): void {
  const started = performance.now();
  client.makeUnaryRequest(path, identity, identity, request, (err) => {
    if (err) errors++;
    else latencies.push(performance.now() - started);
    if (performance.now() < stopAt) call(done);
    else done();
  });
}

client.waitForReady(Date.now() + 10_000, (err) => {
  if (err) throw err;
  const started = performance.now();
  stopAt = started + seconds * 1000;
  running = inFlight;
  for (let i = 0; i < inFlight; i++)
    call(() => {
      if (--running > 0) return;
      const durationUs = (performance.now() - started) * 1000;
      latencies.sort((a, b) => a - b);
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 1000;
      console.log(JSON.stringify({ requests: latencies.length, errors, durationUs, p50Us: at(0.5), p99Us: at(0.99) }));
      client.close();
    });
});
