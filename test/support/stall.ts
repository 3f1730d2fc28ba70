import { readFileSync } from 'node:fs';

/**
 * How long the event loop was held while `work` ran, measured from inside the process: a 1 ms
 * ticker records the most CPU time (and wall time) that passed between two of its turns. CPU time
 * is the figure to assert: on a machine loaded by other work the process is preempted for tens
 * of milliseconds whatever it does, which says nothing about the code under test. It is the main
 * thread's (Linux: /proc/self/task/<pid>/schedstat, in nanoseconds), where the loop runs: the
 * process's total also counts libuv's thread pool (compression) and V8's GC helper threads, which
 * work beside the loop without holding it. Where schedstat cannot be read, the process's CPU time
 * is used (an upper bound).
 */
const MAIN_THREAD = `/proc/self/task/${process.pid}/schedstat`;

function mainThreadMs(): number | null {
  try {
    return Number(readFileSync(MAIN_THREAD, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

function processMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const cpu: () => number = mainThreadMs() !== null ? () => mainThreadMs() ?? 0 : processMs;

export async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; cpuMs: number; wallMs: number }> {
  let lastCpu = cpu();
  let lastWall = performance.now();
  let cpuMs = 0;
  let wallMs = 0;
  const tick = () => {
    const [c, w] = [cpu(), performance.now()];
    cpuMs = Math.max(cpuMs, c - lastCpu);
    wallMs = Math.max(wallMs, w - lastWall);
    [lastCpu, lastWall] = [c, w];
  };
  const ticker = setInterval(tick, 1);
  try {
    const result = await work();
    tick();
    return { result, cpuMs, wallMs };
  } finally {
    clearInterval(ticker);
  }
}
