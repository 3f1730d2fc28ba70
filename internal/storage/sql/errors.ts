import { internal, invalid, isPennonError, notFound, unavailable } from '../../core';
import type { DialectAdapter } from './dialects/adapter';
import { isDeadlineExceeded } from './dialects/deadline';

/**
 * What a driver error means in the domain (Flipt's `internal/storage/sql/errors.go` AdaptError),
 * asked of the dialect. Never carries SQL text: the driver error is only the cause.
 */
export function translateError(dialect: DialectAdapter, err: unknown): Error {
  if (isPennonError(err)) return err;
  if (isDeadlineExceeded(err) || dialect.isTimeout?.(err)) return unavailable('the database did not answer within db.statement_timeout', err);
  if (dialect.isConnectionError(err)) return unavailable('the database is unavailable', err);
  // Still conflicting after every attempt: the client may try again later.
  if (dialect.isRetryable?.(err)) return unavailable('the database is busy; try again', err);
  if (dialect.isUniqueViolation(err)) return invalid('not unique');
  if (dialect.isForeignKeyViolation(err)) return notFound('associated resource not found');
  if (dialect.isInvalidValue?.(err)) return invalid('the request contains a value the database cannot hold (for example a NUL character)');
  return internal('storage error', err);
}
