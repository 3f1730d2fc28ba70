/**
 * The one closed family of domain errors. Every layer throws these; the HTTP error handler
 * is the only place that turns them into statuses (see internal/server/errors.ts).
 */
export type ErrorKind =
  | 'invalid' // bad input: HTTP 400, gRPC InvalidArgument
  | 'not_found' // HTTP 404, gRPC NotFound
  | 'unauthenticated' // HTTP 401
  | 'forbidden' // HTTP 403
  | 'read_only' // a write on a read-only store
  | 'unavailable' // a dependency (the database) is down: HTTP 503
  | 'too_large' // request body over the limit: HTTP 413
  | 'rate_limited' // too many failed authentications from one address: HTTP 429 with Retry-After, gRPC ResourceExhausted
  | 'internal'; // anything else: HTTP 500, message hidden from clients

export class PennonError extends Error {
  readonly kind: ErrorKind;
  /** For `rate_limited`: whole seconds until the caller may try again (HTTP's Retry-After). */
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(message, options);
    this.kind = kind;
    this.name = 'PennonError';
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

export function isPennonError(err: unknown): err is PennonError {
  return err instanceof PennonError;
}

export function invalid(message: string): PennonError {
  return new PennonError('invalid', message);
}

/** Flipt's validation message shape: `invalid field <name>: <reason>`. */
export function invalidField(field: string, reason: string): PennonError {
  return new PennonError('invalid', `invalid field ${field}: ${reason}`);
}

export function emptyField(field: string): PennonError {
  return invalidField(field, 'must not be empty');
}

export function notFound(message: string): PennonError {
  return new PennonError('not_found', message);
}

export function unauthenticated(message = 'request was not authenticated'): PennonError {
  return new PennonError('unauthenticated', message);
}

export function unavailable(message: string, cause?: unknown): PennonError {
  return new PennonError('unavailable', message, { cause });
}

/** Refused before any check: the address failed to authenticate too often (auth/failures.ts). */
export function rateLimited(retryAfterSeconds: number): PennonError {
  return new PennonError('rate_limited', `too many failed authentication attempts from this address; retry in ${retryAfterSeconds}s`, { retryAfterSeconds });
}

export function readOnly(): PennonError {
  return new PennonError('read_only', 'modification is not allowed in read-only mode');
}

export function internal(message: string, cause?: unknown): PennonError {
  return new PennonError('internal', message, { cause });
}
