import { get } from 'node:http';
import { createInterface } from 'node:readline';
import { Client, credentials } from '@grpc/grpc-js';

/**
 * The load side of the streams benchmark (streams.ts), a process of its own pinned to the load
 * CPUs: holds STREAM_CLIENTS live streams — Server-Sent Events of STREAM_URL, or with
 * STREAM_GRPC=host:port flagd's EventStream (evaluation v2) spread over STREAM_CHANNELS
 * connections, as many SDKs' channels would be — notes when each
 * event arrives (process.hrtime, the machine's monotonic clock, which the parent reads too), and
 * on `report <round> <t0 ns>` prints the latencies of that round's events from t0.
 * Its protocol on stdout: `ready <n>`, then one JSON line per report.
 */

const url = process.env.STREAM_URL!;
const clients = Number(process.env.STREAM_CLIENTS ?? 1);
/** arrivals[i][r]: when client i received its r-th event (r = 0 is the version sent at connection). */
const arrivals: bigint[][] = [];

function openOne(i: number): Promise<void> {
  arrivals[i] = [];
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream ${i}: HTTP ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = process.hrtime.bigint();
        for (let at = chunk.indexOf('refetchEvaluation'); at !== -1; at = chunk.indexOf('refetchEvaluation', at + 1)) arrivals[i].push(now);
        if (arrivals[i].length === 1) resolve();
      });
    });
    req.on('error', reject);
  });
}

const grpcTarget = process.env.STREAM_GRPC ?? '';
const channels: Client[] = [];
const EVENT_STREAM = '/flagd.evaluation.v2.Service/EventStream';
// The messages are not decoded: what matters is when one arrives, and its type is plain text in it.
const passThrough = (bytes: Buffer) => bytes;

function openGrpc(i: number): Promise<void> {
  arrivals[i] = [];
  const channel = channels[i % channels.length];
  return new Promise((resolve, reject) => {
    const call = channel.makeServerStreamRequest(EVENT_STREAM, passThrough, passThrough, Buffer.alloc(0));
    call.on('data', (message: Buffer) => {
      const text = message.toString('latin1');
      if (!text.includes('provider_ready') && !text.includes('configuration_change')) return; // heartbeats
      arrivals[i].push(process.hrtime.bigint());
      if (arrivals[i].length === 1) resolve();
    });
    call.on('error', reject);
  });
}

async function main(): Promise<void> {
  if (grpcTarget !== '') {
    const count = Number(process.env.STREAM_CHANNELS ?? 100);
    // A channel of its own each (grpc-js would otherwise share one connection between them).
    for (let c = 0; c < count; c++) channels.push(new Client(grpcTarget, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }));
  }
  const openAny = grpcTarget === '' ? openOne : openGrpc;
  // A few hundred connecting at a time: the server's accept queue is not what is measured.
  for (let i = 0; i < clients; i += 200) await Promise.all(Array.from({ length: Math.min(200, clients - i) }, (_, k) => openAny(i + k)));
  console.log(`ready ${clients}`);
  for await (const line of createInterface({ input: process.stdin })) {
    const [command, round, t0] = line.split(' ');
    if (command !== 'report') continue;
    const r = Number(round);
    const deadline = Date.now() + 5000;
    while (arrivals.some((a) => a.length <= r) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 5));
    const latencies = arrivals.filter((a) => a.length > r).map((a) => Number(a[r] - BigInt(t0)) / 1e6);
    console.log(JSON.stringify({ round: r, received: latencies.length, latencies }));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
