/** What the supervisor (cluster.ts) and its workers (cluster-worker.ts) say to each other over IPC. */

/** The worker's number (0 is the leader), in its environment. */
export const WORKER_INDEX = 'PENNON_WORKER_INDEX';
/**
 * The command line's arguments, in the worker's environment: a worker's own argv depends on how
 * it was started (a single executable gets its path twice), so cmd/main.ts reads these instead.
 */
export const WORKER_ARGS = 'PENNON_WORKER_ARGS';
/** '1' when other workers serve already: this one opens the ports only once it is ready. */
export const WORKER_LISTENS_WHEN_READY = 'PENNON_WORKER_LISTENS_WHEN_READY';

export type FromWorker =
  /** The worker serves (its health is SERVING). */
  | { pennon: 'ready' }
  /** For every other worker: a committed change or a revoked token (cache/instances.ts's message). */
  | { pennon: 'broadcast'; text: string }
  /** A scrape arrived here: combine every worker's. */
  | { pennon: 'scrape'; id: number }
  /** This worker's own scrape, asked for by `render`. */
  | { pennon: 'rendered'; id: number; text: string };

export type ToWorker =
  | { pennon: 'broadcast'; text: string }
  | { pennon: 'render'; id: number }
  | { pennon: 'scraped'; id: number; text: string }
  /** Drain and exit, as on a first signal. */
  | { pennon: 'stop' };
