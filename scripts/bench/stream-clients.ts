import { get } from 'node:http';
import { createInterface } from 'node:readline';

/**
 * The load side of the streams benchmark (streams.ts), a process of its own pinned to the load
 * CPUs: holds STREAM_CLIENTS live streams of STREAM_URL (Server-Sent Events), notes when each
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

async function main(): Promise<void> {
  // A few hundred connecting at a time: the server's accept queue is not what is measured.
  for (let i = 0; i < clients; i += 200) await Promise.all(Array.from({ length: Math.min(200, clients - i) }, (_, k) => openOne(i + k)));
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
