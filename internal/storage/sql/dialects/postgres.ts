import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type { Client, ClientConfig, Pool, PoolClient } from 'pg';
import type { Connection } from '../connection';
import { withLease } from '../migrate/lease';
import { splitStatements } from '../migrate/script';
import type { Database } from '../tables';
import type { DialectAdapter } from './adapter';
import { NETWORK_CODES, causes, errorCode, errorMessage, isConnectFailure, isNotReadyYet, markConnectFailure } from './driver-errors';
import { isDeadlineExceeded, probeSessions, resetSocket, withDeadline, type DeadlineExceeded } from './deadline';
import { acquireTimeoutMs, clientDeadlineMs, FALLBACK_ACQUIRE_MS, IDLE_TIMEOUT_MS, poolSizes, type PoolOptions } from './pool';

/**
 * PostgreSQL through pg and Kysely's dialect; CockroachDB (cockroach.ts) opens through the same
 * driver here, with its own adapter. The driver is loaded on first use, so SQLite users never pay
 * for it.
 */

export type PgFlavour = 'postgres' | 'cockroach';

// SQLSTATE classes and codes: https://www.postgresql.org/docs/current/errcodes-appendix.html
const CONNECTION_SQLSTATES = new Set([
  '57P01', // admin_shutdown (pg_terminate_backend, server stopping)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '53300', // too_many_connections
]);
// `timeout expired`: a client (not the pool) that could not connect within connectionTimeoutMillis.
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|timeout expired|Client has encountered a connection error|is not queryable|Connection ended|the database system is (starting up|shutting down)/i;

function isPgConnectionError(err: unknown): boolean {
  for (const e of causes(err)) {
    if (isConnectFailure(e) || isDeadlineExceeded(e)) return true;
    const code = errorCode(e);
    if (code.startsWith('08') || CONNECTION_SQLSTATES.has(code) || NETWORK_CODES.has(code)) return true;
    if (CONNECTION_MESSAGES.test(errorMessage(e))) return true;
  }
  return false;
}

export const hasSqlState = (code: string) => (err: unknown) => [...causes(err)].some((e) => errorCode(e) === code);

// Worth waiting for at start-up: starting, shutting down or in recovery (57P03), not accepting
// connections yet (55000), too many connections (53300).
const NOT_READY_SQLSTATES = new Set(['57P03', '55000', '53300']);
const NOT_READY_MESSAGES = /timeout exceeded when trying to connect|timeout expired|Connection terminated|the database system is (starting up|shutting down)/i;

export const postgresAdapter: DialectAdapter = {
  name: 'postgres',
  isUniqueViolation: hasSqlState('23505'),
  isForeignKeyViolation: hasSqlState('23503'),
  isConnectionError: isPgConnectionError,
  isNotReadyYet: (err) => isNotReadyYet(err, NOT_READY_SQLSTATES, NOT_READY_MESSAGES),
  isRetryable: hasSqlState('40P01'), // deadlock_detected: the loser may run again
  isTimeout: hasSqlState('57014'), // query_canceled: statement_timeout (ours) or a cancel request
  // character_not_in_repertoire (NUL in text), untranslatable_character, string_data_right_truncation
  isInvalidValue: (err) => hasSqlState('22021')(err) || hasSqlState('22P05')(err) || hasSqlState('22001')(err),
  // Reads of the evaluation model see one snapshot; a read-only REPEATABLE READ never fails.
  snapshotIsolation: 'repeatable read',
};

/** `cockroach://` and `cockroachdb://` are postgres:// for the driver, on Cockroach's port by default. */
export function driverUrl(url: string, flavour: PgFlavour): string {
  if (flavour === 'postgres') return url;
  const parsed = new URL(url.replace(/^cockroach(db)?:/, 'postgres:'));
  if (parsed.port === '') parsed.port = '26257';
  return parsed.toString();
}

/** host:port/database, for logs: never the credentials. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

type Pg = typeof import('pg');

async function loadPg(): Promise<Pg> {
  const mod = (await import('pg')) as Pg & { default?: Pg };
  return mod.default ?? mod;
}

/**
 * Numbers as numbers: int8 (COUNT, BIGINT timestamps) and numeric come back as strings by default.
 * SQL timestamps and JSON as their text: pg would read a `timestamp` without time zone as local
 * time, and JSONB as an object (losing the text Flipt served, a variant attachment's). Pennon's
 * own tables have neither — only a Flipt v1 database read by `migrate --from-flipt` does.
 */
function typeParsers(pg: Pg): ClientConfig['types'] {
  const INT8 = 20;
  const NUMERIC = 1700;
  const TIMESTAMP = 1114;
  const TIMESTAMPTZ = 1184;
  const JSON_TYPE = 114;
  const JSONB = 3802;
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8 || oid === NUMERIC
        ? (value: string) => Number(value)
        : oid === TIMESTAMP || oid === TIMESTAMPTZ || oid === JSON_TYPE || oid === JSONB
          ? (value: string) => value
          : pg.types.getTypeParser(oid, format as 'text')) as never,
  };
}

export function openPostgres(url: string, options: PoolOptions): Connection {
  return openPg(url, options, 'postgres', postgresAdapter);
}

/**
 * A pooled client as Kysely sees it, each statement under the client-side deadline. A statement
 * that misses it resets the connection (the server rolls back whatever it had begun, and a
 * statement still held in the network is never delivered), fails every later statement on it at
 * once — the transaction's ROLLBACK included — and is released as broken, so the pool drops it
 * instead of handing a stuck connection to the next request.
 */
function deadlineClient(client: PoolClient, deadlineMs: number): PostgresPoolClient {
  let broken: DeadlineExceeded | undefined;
  const query = (text: string, values: unknown[]) => {
    if (broken) return Promise.reject(broken);
    return withDeadline(client.query(text, values), deadlineMs, 'a PostgreSQL statement', (err) => {
      broken = err;
      resetSocket(socketOf(client));
    });
  };
  return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release(broken) };
}

/** The socket under a pg client (pg keeps it on its connection object). */
const socketOf = (client: Client | PoolClient) => (client as unknown as { connection?: { stream?: import('node:net').Socket } }).connection?.stream;

/** A pg pool for PostgreSQL or CockroachDB; the flavour decides how migrations run and lock. */
export function openPg(url: string, options: PoolOptions, flavour: PgFlavour, adapter: DialectAdapter): Connection {
  const connectionString = driverUrl(url, flavour);
  const { max, idle } = poolSizes(options);
  const deadlineMs = clientDeadlineMs(options);
  let loaded: Promise<{ pg: Pg; pool: Pool; config: ClientConfig }> | undefined;
  let opened: Pool | null = null;

  const load = () =>
    (loaded ??= loadPg().then((pg) => {
      // The URL's own parameters (sslmode, application_name, options, …) win over these.
      const config: ClientConfig = { connectionString, application_name: 'pennon', types: typeParsers(pg), connectionTimeoutMillis: options.connectTimeoutMs };
      const pool = new pg.Pool({
        ...config,
        // The database cancels a statement that runs too long itself (57014, the connection
        // stays usable); a session left idle inside a transaction — its client gone silent —
        // is ended, so that its row locks do not block every later write to its namespace.
        ...(options.statementTimeoutMs > 0 && {
          statement_timeout: options.statementTimeoutMs,
          idle_in_transaction_session_timeout: 2 * options.statementTimeoutMs,
        }),
        connectionTimeoutMillis: acquireTimeoutMs(options),
        max,
        min: idle, // clients above this many are closed after IDLE_TIMEOUT_MS idle
        idleTimeoutMillis: IDLE_TIMEOUT_MS,
        maxLifetimeSeconds: options.maxLifetimeMs > 0 ? Math.max(1, Math.ceil(options.maxLifetimeMs / 1000)) : 0,
      });
      // An idle client whose server connection dies emits 'error' on the pool; unhandled, that
      // would end the process. The pool has already dropped the client, and the next query opens
      // a new one: nothing else to do. A checked-out client can also emit between two queries
      // (inside a transaction): its next query fails, and the store reports Unavailable.
      pool.on('error', () => undefined);
      pool.on('connect', (client) => client.on('error', () => undefined));
      opened = pool;
      return { pg, pool, config };
    }));

  // What Kysely sees: failures to obtain a connection are marked, whatever their cause.
  const kyselyPool = async (): Promise<PostgresPool> => {
    const { pool } = await load();
    return {
      connect: async () => deadlineClient(await pool.connect().catch((err: unknown) => Promise.reject(markConnectFailure(err))), deadlineMs),
      end: () => endPool(pool),
    };
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: kyselyPool }) });

  const endPool = async (pool: Pool) => {
    if (!pool.ended) await pool.end();
  };

  /** A pooled client for a migration script: no statement timeout (DDL may be slow); dropped after, with its session setting. */
  async function withClient<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const { pool } = await load();
    const client = await pool.connect().catch((err: unknown) => Promise.reject(markConnectFailure(err)));
    try {
      await client.query('SET statement_timeout = 0');
      return await fn(client);
    } finally {
      client.release(true);
    }
  }

  /** The health probe's own client (never the pool's: a busy pool must not look like a dead database). */
  const giveUpMs = options.connectTimeoutMs > 0 ? options.connectTimeoutMs : FALLBACK_ACQUIRE_MS;
  const probes = probeSessions(async () => {
    const { pg, config } = await load();
    const client = new pg.Client({ ...config, connectionTimeoutMillis: giveUpMs });
    client.on('error', () => undefined);
    return {
      connect: async () => void (await client.connect().catch((err: unknown) => Promise.reject(markConnectFailure(err)))),
      ask: async () => void (await client.query('SELECT 1')),
      reset: () => resetSocket(socketOf(client)),
      end: () => client.end(),
    };
  }, giveUpMs);

  /** A session-level advisory lock on a client of its own (not from the pool, which may be tiny). */
  async function withAdvisoryLock<T>(fn: () => Promise<T>): Promise<T> {
    const { pg, config } = await load();
    const client: Client = new pg.Client(config);
    client.on('error', () => undefined); // a lost lock session surfaces as a failed unlock below
    await client.connect().catch((err: unknown) => Promise.reject(markConnectFailure(err)));
    try {
      // One key per database and schema, so that test schemas on one server do not block each other.
      await client.query(
        "SELECT pg_advisory_lock(('x' || left(md5('pennon_migrate/' || current_database() || '/' || current_schema()), 16))::bit(64)::bigint)",
      );
      try {
        return await fn();
      } finally {
        await client
          .query("SELECT pg_advisory_unlock(('x' || left(md5('pennon_migrate/' || current_database() || '/' || current_schema()), 16))::bit(64)::bigint)")
          .catch(() => undefined); // the session ends below anyway, which releases the lock
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  return {
    db,
    adapter,
    describe: `${flavour} ${describeUrl(connectionString)}`,
    poolStats: () => (opened ? { total: opened.totalCount, idle: opened.idleCount, waiting: opened.waitingCount } : { total: 0, idle: 0, waiting: 0 }),
    transactionalDdl: flavour === 'postgres',
    runScript: (script) =>
      withClient(async (client) => {
        if (flavour === 'cockroach') {
          // CockroachDB runs schema changes inside transactions only with restrictions: one by one.
          for (const statement of splitStatements(script)) await client.query(statement);
          return;
        }
        await client.query('BEGIN');
        try {
          await client.query(script); // simple protocol: several statements in one round trip
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    hasTable: async (name) => {
      const rows = await sql<{ one: number }>`SELECT 1 AS one FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ${name}`.execute(db);
      return rows.rows.length > 0;
    },
    // CockroachDB has no advisory locks (its pg_advisory_lock is a no-op): a lease row instead.
    withMigrationLock: (fn) => (flavour === 'cockroach' ? withLease(db, fn) : withAdvisoryLock(fn)),
    probe: (timeoutMs) => probes.probe(timeoutMs),
    close: async () => {
      await probes.close();
      await db.destroy();
      // Kysely ends the pool only if it ever used it; migrations may have used it alone.
      if (loaded) await endPool((await loaded).pool);
    },
  };
}
