import { isDeadlineExceeded } from './deadline';

/** Reading what a driver threw, whatever the driver: shared by the dialect files. */

/** Errors raised while obtaining a connection: whatever the cause, the database is unavailable. */
const CONNECT_FAILURE = Symbol('pennon.connectFailure');

export function markConnectFailure(err: unknown): unknown {
  if (err !== null && typeof err === 'object') (err as Record<symbol, boolean>)[CONNECT_FAILURE] = true;
  return err;
}

export function isConnectFailure(err: unknown): boolean {
  return err !== null && typeof err === 'object' && (err as Record<symbol, boolean>)[CONNECT_FAILURE] === true;
}

/** The error and the errors it wraps (`cause`), outermost first. */
export function* causes(err: unknown): Generator<unknown> {
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) yield e;
}

export const errorCode = (err: unknown): string => String((err as { code?: unknown })?.code ?? '');
export const errorMessage = (err: unknown): string => String((err as { message?: unknown })?.message ?? '');

/** Network failures as Node reports them, whatever the driver. */
export const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * Whether a start-up failure is the database not being there yet: a network failure or one of
 * the dialect's codes, or a failure to obtain a connection whose message says so.
 */
export function isNotReadyYet(err: unknown, codes: ReadonlySet<string>, messages: RegExp): boolean {
  for (const e of causes(err)) {
    // A database that accepts connections and never answers (a partition, a hung server) is
    // waited for as one that refuses them: each attempt ends at its own deadline.
    if (NETWORK_CODES.has(errorCode(e)) || codes.has(errorCode(e)) || isDeadlineExceeded(e)) return true;
    if (isConnectFailure(e) && messages.test(errorMessage(e))) return true;
  }
  return false;
}
