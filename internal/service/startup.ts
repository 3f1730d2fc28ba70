import type { Logger } from 'pino';
import type { HealthState } from '../server';
import { causes, errorCode, errorMessage, isConnectFailure, NETWORK_CODES } from '../storage/sql/pool';

/**
 * Connection failures worth waiting out at start: the database is not there *yet* (an
 * orchestrator starts it beside us, it is restarting, it refuses connections for a while). A
 * wrong password, a database that does not exist or pending migrations are not: those fail the
 * start at once with their own message, as before.
 */
const TRANSIENT_CODES = new Set([
  ...NETWORK_CODES,
  '57P03', // PostgreSQL cannot_connect_now: starting up, shutting down, in recovery
  '55000', // PostgreSQL: database "…" is not currently accepting connections
  '53300', // PostgreSQL too_many_connections
  'ER_CON_COUNT_ERROR',
  'PROTOCOL_CONNECTION_LOST',
]);
const TRANSIENT_MESSAGE = /timeout exceeded when (trying to connect|waiting for a connection)|Connection terminated|the database system is (starting up|shutting down)/i;

export function isTransientStartFailure(err: unknown): boolean {
  for (const e of causes(err)) {
    if (TRANSIENT_CODES.has(errorCode(e))) return true;
    if (isConnectFailure(e) && TRANSIENT_MESSAGE.test(errorMessage(e))) return true;
  }
  return false;
}

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
 * the reason. Logs the wait once and its end once. An aborted `signal` ends the wait.
 */
export async function whenReachable<T>(step: () => Promise<T>, health: HealthState, logger: Logger, signal?: AbortSignal): Promise<T> {
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
      if (!isTransientStartFailure(err)) throw err;
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
