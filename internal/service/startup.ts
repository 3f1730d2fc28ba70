import type { Logger } from 'pino';
import type { HealthState } from '../server';
import type { Connection } from '../storage';

/** Thrown when a shutdown was asked for before the service was ready. */
export class StartCancelled extends Error {
  constructor() {
    super('start-up cancelled by shutdown');
    this.name = 'StartCancelled';
  }
}

/** Thrown when `db.startup_timeout` passed before the database answered. */
export class DatabaseNotReachable extends Error {
  constructor(describe: string, limitMs: number, attempts: number, cause: unknown) {
    const reason = (cause as { code?: unknown })?.code ?? (cause as Error)?.message ?? 'no answer';
    super(
      `the database (${describe}) did not answer within db.startup_timeout (${limitMs} ms, ${attempts} attempts; last: ${String(reason)}): ` +
        'check db.url and that the database is up and reachable from here, or raise db.startup_timeout (0 waits for ever)',
      { cause },
    );
    this.name = 'DatabaseNotReachable';
  }
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;

export interface ReachableOptions {
  connection: Pick<Connection, 'adapter' | 'describe'>;
  health: HealthState;
  logger: Logger;
  /** Aborting it ends the wait (StartCancelled). */
  signal?: AbortSignal;
  /** `db.startup_timeout` (ms): give up after this long (DatabaseNotReachable); 0 = wait for ever. */
  limitMs?: number;
}

/**
 * Runs `step` (the schema check) until the database answers, while health says STARTING with
 * the reason. Waits only for failures the connection's dialect says are worth waiting out (the
 * database not there *yet*: refused, reset, or accepted and never answered — each attempt ends
 * at its connection's own deadline); any other fails the start at once. Retries back off from
 * 250 ms to 5 s, one log line per attempt (so the back-off rate-limits them); `limitMs` bounds
 * the whole wait. An aborted `signal` ends it.
 */
export async function whenReachable<T>(step: () => Promise<T>, options: ReachableOptions): Promise<T> {
  const { connection, health, logger, signal, limitMs = 0 } = options;
  let delay = FIRST_RETRY_MS;
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw new StartCancelled();
    let failure: unknown;
    try {
      const result = await step();
      if (attempt > 1) {
        logger.info({ waitedMs: Date.now() - started, attempts: attempt }, 'the database answers; finishing start-up');
        health.databaseChecked(null);
      }
      return result;
    } catch (err) {
      if (!connection.adapter.isNotReadyYet(err)) throw err;
      health.databaseChecked(err);
      failure = err;
    }
    const waited = Date.now() - started;
    if (limitMs > 0 && waited + delay > limitMs) {
      // The next attempt would start past the limit: give up now, saying what to fix.
      throw new DatabaseNotReachable(connection.describe, limitMs, attempt, failure);
    }
    logger.warn(
      { err: failure, attempt, waitedMs: waited, retryInMs: delay, database: connection.describe },
      'the database is not reachable yet; health says NOT_SERVING and start-up retries until it answers',
    );
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, delay);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
    delay = Math.min(delay * 2, MAX_RETRY_MS);
  }
}
