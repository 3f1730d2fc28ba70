import type { Connection } from '../connection';
import type { DialectAdapter } from './adapter';
import type { PoolOptions } from './pool';
import { hasSqlState, openPg, postgresAdapter } from './postgres';

/**
 * CockroachDB, through PostgreSQL's driver (postgres.ts), which runs its migrations statement
 * by statement and locks them with a lease row (migrate/lease.ts).
 *
 * CockroachDB runs every transaction SERIALIZABLE and asks the client to retry one that lost a
 * conflict (SQLSTATE 40001). Setting the isolation explicitly makes the same adapter behave
 * the same way on PostgreSQL, which is where it is tested (docs/DECISIONS.md).
 */
export const cockroachAdapter: DialectAdapter = {
  ...postgresAdapter,
  name: 'cockroach',
  isRetryable: (err) => hasSqlState('40001')(err) || hasSqlState('40P01')(err),
  writeIsolation: 'serializable',
  snapshotIsolation: 'serializable',
};

/** `cockroach://` or `cockroachdb://`, on Cockroach's port (26257) unless the URL names one. */
export function openCockroach(url: string, options: PoolOptions): Connection {
  return openPg(url, options, 'cockroach', cockroachAdapter);
}
