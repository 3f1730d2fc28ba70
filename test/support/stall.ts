import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

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

/** Pauses of V8's collector on the main thread (start, end), as performance entries report them. */
function gcPauses(): { pausedWithin: (from: number, to: number) => number; stop: () => void } {
  const pauses: [number, number][] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push([entry.startTime, entry.startTime + entry.duration]);
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    pausedWithin: (from, to) => pauses.reduce((sum, [start, end]) => sum + Math.max(0, Math.min(end, to) - Math.max(start, from)), 0),
    stop: () => observer.disconnect(),
  };
}

/**
 * `cpuMs` and `wallMs`: the longest hold, whatever held. `ownMs`: the longest hold of the code
 * itself, the collector's pauses in the same interval taken out — what slicing work controls. A
 * young-generation collection that copies what a build keeps alive pauses 10-40 ms on an idle
 * machine and more when its helper threads get no core; those pauses are the runtime's, measured
 * end to end by issue 16's benchmarks.
 */
export async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; cpuMs: number; wallMs: number; ownMs: number }> {
  let lastCpu = cpu();
  let lastWall = performance.now();
  let cpuMs = 0;
  let wallMs = 0;
  const gc = gcPauses();
  const intervals: [number, number, number][] = []; // wall from, wall to, CPU
  const tick = () => {
    const [c, w] = [cpu(), performance.now()];
    cpuMs = Math.max(cpuMs, c - lastCpu);
    wallMs = Math.max(wallMs, w - lastWall);
    if (c - lastCpu > 5) intervals.push([lastWall, w, c - lastCpu]);
    [lastCpu, lastWall] = [c, w];
  };
  const ticker = setInterval(tick, 1);
  try {
    const result = await work();
    tick();
    // The collector's entries arrive a turn after the pause.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const ownMs = intervals.reduce((max, [from, to, held]) => Math.max(max, held - gc.pausedWithin(from, to)), 0);
    return { result, cpuMs, wallMs, ownMs };
  } finally {
    clearInterval(ticker);
    gc.stop();
  }
}
