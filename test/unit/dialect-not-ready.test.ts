import { describe, expect, it } from 'vitest';
import { PendingMigrationsError } from '../../internal/storage/sql';
import type { DialectAdapter } from '../../internal/storage/sql/dialects/adapter';
import { cockroachAdapter } from '../../internal/storage/sql/dialects/cockroach';
import { DeadlineExceeded } from '../../internal/storage/sql/dialects/deadline';
import { markConnectFailure } from '../../internal/storage/sql/dialects/driver-errors';
import { mysqlAdapter } from '../../internal/storage/sql/dialects/mysql';
import { postgresAdapter } from '../../internal/storage/sql/dialects/postgres';
import { sqliteAdapter } from '../../internal/storage/sql/dialects/sqlite';

/**
 * Which start-up failures each dialect says are worth waiting out (the database not there *yet*),
 * and which fail the start at once: a wrong password, a missing database, pending migrations.
 */
const coded = (code: string, message = 'driver error') => Object.assign(new Error(message), { code });
const wrapped = (cause: unknown) => new Error('while preparing the schema', { cause });
const connectFailure = (message: string) => markConnectFailure(new Error(message));

const classify = (adapter: DialectAdapter, errors: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(errors).map(([what, err]) => [what, adapter.isNotReadyYet(err)]));

describe('start-up failures worth waiting for', () => {
  const network = {
    refused: coded('ECONNREFUSED'),
    'host not found': coded('ENOTFOUND'),
    'reset, wrapped': wrapped(coded('ECONNRESET')),
    // Accepted and never answered (a partition): each attempt ends at its deadline, and is waited out.
    'deadline, wrapped': wrapped(new DeadlineExceeded('a statement', 1000)),
  };
  const never = { 'pending migrations': new PendingMigrationsError(['0003_x']), 'plain error': new Error('boom') };

  it.each([
    ['postgres', postgresAdapter],
    ['cockroach', cockroachAdapter],
  ])('%s: network failures, starting up, not accepting connections yet, too many connections', (_, adapter) => {
    expect(
      classify(adapter, {
        ...network,
        'cannot_connect_now 57P03': coded('57P03'),
        'not accepting connections 55000': wrapped(coded('55000')),
        'too_many_connections 53300': coded('53300'),
        'pool timeout': connectFailure('timeout exceeded when trying to connect'),
        'client connect timeout': connectFailure('timeout expired'),
        'terminated while connecting': connectFailure('Connection terminated unexpectedly'),
        'starting up': connectFailure('the database system is starting up'),
        'wrong password 28P01': coded('28P01'),
        'no such database 3D000': coded('3D000'),
        'the same message, not while connecting': new Error('Connection terminated unexpectedly'),
        ...never,
      }),
    ).toEqual({
      refused: true,
      'host not found': true,
      'reset, wrapped': true,
      'deadline, wrapped': true,
      'cannot_connect_now 57P03': true,
      'not accepting connections 55000': true,
      'too_many_connections 53300': true,
      'pool timeout': true,
      'client connect timeout': true,
      'terminated while connecting': true,
      'starting up': true,
      'wrong password 28P01': false,
      'no such database 3D000': false,
      'the same message, not while connecting': false,
      'pending migrations': false,
      'plain error': false,
    });
  });

  it('mysql: network failures, too many connections, a connection lost, no connection in time', () => {
    expect(
      classify(mysqlAdapter, {
        ...network,
        'too many connections': coded('ER_CON_COUNT_ERROR'),
        'connection lost': wrapped(coded('PROTOCOL_CONNECTION_LOST')),
        'acquire timeout': connectFailure('timeout exceeded when waiting for a connection'),
        'access denied': coded('ER_ACCESS_DENIED_ERROR'),
        'unknown database': coded('ER_BAD_DB_ERROR'),
        ...never,
      }),
    ).toEqual({
      refused: true,
      'host not found': true,
      'reset, wrapped': true,
      'deadline, wrapped': true,
      'too many connections': true,
      'connection lost': true,
      'acquire timeout': true,
      'access denied': false,
      'unknown database': false,
      'pending migrations': false,
      'plain error': false,
    });
  });

  it('sqlite: a file opens or not, nothing to wait for', () => {
    expect(classify(sqliteAdapter, { busy: coded('SQLITE_BUSY'), 'cannot open': coded('SQLITE_CANTOPEN'), ...never })).toEqual({
      busy: false,
      'cannot open': false,
      'pending migrations': false,
      'plain error': false,
    });
  });
});
