import cluster, { type Worker } from 'node:cluster';
import { constants } from 'node:os';
import type { Logger } from 'pino';
import { mergeScrapes } from '../telemetry';
import { WORKER_ARGS, WORKER_INDEX, WORKER_LISTENS_WHEN_READY, type FromWorker, type ToWorker } from './cluster-messages';

/**
 * `serve` with `server.workers` > 1: this process supervises the workers and serves nothing
 * itself. Each worker is a whole service (its own database pool, snapshots and HTTP and gRPC
 * servers on the shared ports — node:cluster hands connections round-robin); the supervisor
 * relays what they tell each other (committed changes, revoked tokens), combines their metrics
 * for a scrape, restarts a worker that dies, and on a signal drains them all.
 *
 * The first worker starts alone (it migrates a fresh database and binds the ports), the others
 * once it serves. A worker that exits before it ever served means the service cannot start (a
 * port in use, a database that refused the start): every worker is stopped and the supervisor
 * exits 1, as a single process would, with that worker's one error message. One that dies later is restarted after a pause that doubles while it
 * keeps dying (up to 10 s). Worker 0 is the leader: it alone runs the background jobs that must
 * run once (token cleanup); its replacement takes the role.
 */

export interface SupervisorOptions {
  workers: number;
  logger: Logger;
  /** The command line's arguments after the executable (`serve --config …`), given to each worker. */
  args: readonly string[];
  /** Run once every worker has exited on a stop, before the supervisor exits (e.g. fold SQLite's WAL back). */
  afterStop?: () => Promise<void>;
}

/** How long a scrape waits for the workers' own scrapes; a worker that has not answered by then is left out. */
const SCRAPE_WAIT_MS = 2000;
const RESTART_FIRST_MS = 250;
const RESTART_MAX_MS = 10_000;

interface Slot {
  index: number;
  worker: Worker;
  ready: boolean;
  restartDelayMs: number;
}

interface PendingScrape {
  from: Worker;
  id: number;
  texts: { worker: string; text: string }[];
  waiting: Set<number>;
  timer: NodeJS.Timeout;
}

export function superviseWorkers(options: SupervisorOptions): void {
  const { logger } = options;
  const slots: Slot[] = [];
  const exitCodes: number[] = [];
  let stopping = false;
  let everyoneServed = false;
  let nextScrape = 0;
  const scrapes = new Map<number, PendingScrape>();

  const live = () => slots.filter((s) => !s.worker.isDead());
  const send = (worker: Worker, message: ToWorker) => {
    if (worker.isConnected()) worker.send(message);
  };

  const fork = (index: number, restartDelayMs = RESTART_FIRST_MS): void => {
    // While another worker serves, a new one opens the ports only once ready: no connection is
    // handed to it that it would answer "starting".
    const othersServe = slots.some((s) => s !== undefined && s.ready && !s.worker.isDead());
    const worker = cluster.fork({ [WORKER_INDEX]: String(index), [WORKER_ARGS]: JSON.stringify(options.args), [WORKER_LISTENS_WHEN_READY]: othersServe ? '1' : '' });
    const slot: Slot = { index, worker, ready: false, restartDelayMs };
    slots[index] = slot;
    worker.on('message', (message: FromWorker) => onMessage(slot, message));
    worker.on('exit', (code, signal) => onExit(slot, code, signal));
  };

  const onMessage = (slot: Slot, message: FromWorker): void => {
    switch (message?.pennon) {
      case 'ready':
        slot.ready = true;
        // The others start once the first serves: the database is migrated and the ports bound
        // by then, and a start that cannot succeed fails once, in one worker, with one message.
        if (slots.length === 1 && slot.index === 0) for (let index = 1; index < options.workers; index++) fork(index);
        if (!everyoneServed && slots.length === options.workers && slots.every((s) => s.ready)) {
          everyoneServed = true;
          logger.info({ workers: options.workers }, `pennon is serving with ${options.workers} worker processes`);
        }
        return;
      case 'broadcast':
        for (const other of live()) if (other !== slot) send(other.worker, { pennon: 'broadcast', text: message.text });
        return;
      case 'scrape':
        return startScrape(slot.worker, message.id);
      case 'rendered':
        return rendered(slot.index, message.id, message.text);
    }
  };

  const startScrape = (from: Worker, id: number): void => {
    const key = nextScrape++;
    const asked = live().filter((s) => s.ready);
    const pending: PendingScrape = { from, id, texts: [], waiting: new Set(asked.map((s) => s.index)), timer: setTimeout(() => finishScrape(key), SCRAPE_WAIT_MS) };
    scrapes.set(key, pending);
    for (const s of asked) send(s.worker, { pennon: 'render', id: key });
    if (asked.length === 0) finishScrape(key);
  };

  const rendered = (index: number, key: number, text: string): void => {
    const pending = scrapes.get(key);
    if (!pending || !pending.waiting.delete(index)) return;
    pending.texts.push({ worker: String(index), text });
    if (pending.waiting.size === 0) finishScrape(key);
  };

  const finishScrape = (key: number): void => {
    const pending = scrapes.get(key);
    if (!pending) return;
    scrapes.delete(key);
    clearTimeout(pending.timer);
    if (pending.waiting.size > 0) logger.warn({ workers: [...pending.waiting] }, 'a scrape left out workers that did not answer within 2 s');
    pending.texts.sort((a, b) => Number(a.worker) - Number(b.worker));
    send(pending.from, { pennon: 'scraped', id: pending.id, text: mergeScrapes(pending.texts) });
  };

  const onExit = (slot: Slot, code: number | null, signal: string | null): void => {
    const exitCode = code ?? 128 + (signal ? (constants.signals[signal as NodeJS.Signals] ?? 15) : 15);
    if (stopping) {
      exitCodes.push(exitCode);
      if (live().length === 0) void exit(Math.max(0, ...exitCodes));
      return;
    }
    if (!slot.ready) {
      logger.error({ worker: slot.index, code, signal }, 'a worker process exited before it served: stopping');
      stopAll(1);
      return;
    }
    const delay = slot.restartDelayMs;
    logger.error({ worker: slot.index, code, signal, restartInMs: delay }, 'a worker process died: starting another');
    setTimeout(() => {
      if (!stopping) fork(slot.index, Math.min(delay * 2, RESTART_MAX_MS));
    }, delay).unref();
  };

  /** Every worker drains (as on a signal); the supervisor exits with the worst exit code, or `atLeast`. */
  const stopAll = (atLeast = 0): void => {
    if (stopping) return;
    stopping = true;
    exitCodes.push(atLeast);
    const running = live();
    if (running.length === 0) return void exit(atLeast);
    for (const s of running) send(s.worker, { pennon: 'stop' });
  };

  const exit = async (code: number): Promise<void> => {
    try {
      await options.afterStop?.();
    } catch (err) {
      logger.warn({ err }, 'the last step after the workers stopped failed');
    }
    process.exit(code);
  };

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: stopping every worker at once');
      for (const s of live()) s.worker.process.kill('SIGKILL');
      process.exit(128 + (constants.signals[signal] ?? 15));
    }
    logger.info({ signal, workers: live().length }, 'shutting down every worker');
    stopAll();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  // The workers accept from the shared listening sockets themselves (the kernel wakes one), rather
  // than the supervisor accepting and handing each connection over: a connection handed to a
  // worker that has just died was left open with no one to answer it (round-robin's flaw).
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  logger.info({ workers: options.workers }, `starting ${options.workers} worker processes`);
  fork(0);
}
