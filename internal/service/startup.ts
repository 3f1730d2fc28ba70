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

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;

/**
 * Runs `step` (the schema check) until the database answers, while health says STARTING with
 * the reason. Waits only for failures the connection's dialect says are worth waiting out (the
 * database not there *yet*); any other fails the start at once. Logs the wait once and its end
 * once. An aborted `signal` ends the wait.
 */
export async function whenReachable<T>(
  step: () => Promise<T>,
  connection: Pick<Connection, 'adapter'>,
  health: HealthState,
  logger: Logger,
  signal?: AbortSignal,
): Promise<T> {
  let delay = FIRST_RETRY_MS;
  let waitingSince: number | null = null;
  for (;;) {
    if (signal?.aborted) throw new StartCancelled();
    try {
      const result = await step();
      if (waitingSince !== null) {
        logger.info({ waitedMs: Date.now() - waitingSince }, 'the database answers; finishing start-up');
        health.databaseChecked(null);
      }
      return result;
    } catch (err) {
      if (!connection.adapter.isNotReadyYet(err)) throw err;
      health.databaseChecked(err);
      if (waitingSince === null) {
        waitingSince = Date.now();
        logger.warn({ err }, 'the database is not reachable yet; health says NOT_SERVING and start-up retries until it answers');
      }
    }
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
