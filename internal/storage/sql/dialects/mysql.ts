import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, MysqlDialect, sql, type MysqlPool } from 'kysely';
import type { Connection as RawConnection, ConnectionOptions, Pool, PoolConnection } from 'mysql2';
import type { Connection } from '../connection';
import { splitStatements } from '../migrate/script';
import type { Database } from '../tables';
import type { DialectAdapter } from './adapter';
import { NETWORK_CODES, causes, errorCode, errorMessage, isConnectFailure, isNotReadyYet, markConnectFailure } from './driver-errors';
import { isDeadlineExceeded, probeSessions, resetSocket, withDeadline, type DeadlineExceeded } from './deadline';
import { acquireTimeoutMs, clientDeadlineMs, FALLBACK_ACQUIRE_MS, IDLE_TIMEOUT_MS, poolSizes, type PoolOptions } from './pool';

/** MySQL and MariaDB through mysql2 (callback API, which Kysely's dialect drives). Loaded on first use. */

type MysqlErr = { code?: string; errno?: number; sqlState?: string; fatal?: boolean };

// Server error numbers: https://mariadb.com/kb/en/mariadb-error-codes/ (MySQL shares them).
const CONNECTION_ERRNOS = new Set([
  1040, // ER_CON_COUNT_ERROR: too many connections
  1053, // ER_SERVER_SHUTDOWN
  1927, // ER_CONNECTION_KILLED (MariaDB)
  2002, // CR_CONNECTION_ERROR
  2003, // CR_CONN_HOST_ERROR
  2006, // CR_SERVER_GONE_ERROR
  2013, // CR_SERVER_LOST
]);
const CONNECTION_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN', 'ER_CONNECTION_KILLED']);

function isMysqlConnectionError(err: unknown): boolean {
  for (const e of causes(err)) {
    if (isConnectFailure(e) || isDeadlineExceeded(e)) return true;
    const m = e as MysqlErr;
    // mysql2 marks errors after which the connection is unusable as fatal.
    if (m.fatal === true || NETWORK_CODES.has(errorCode(e)) || CONNECTION_CODES.has(errorCode(e))) return true;
    if (typeof m.errno === 'number' && CONNECTION_ERRNOS.has(m.errno)) return true;
    if (/Pool is closed|closed state|Connection lost/i.test(errorMessage(e))) return true;
  }
  return false;
}

const anyErrno = (...errnos: number[]) => (err: unknown) =>
  [...causes(err)].some((e) => errnos.includes((e as MysqlErr).errno ?? -1));

// Worth waiting for at start-up: too many connections, a connection lost while the server starts,
// or no connection within the acquire timeout (our own message, in openMysql's acquire).
const NOT_READY_CODES = new Set(['ER_CON_COUNT_ERROR', 'PROTOCOL_CONNECTION_LOST']);
const NOT_READY_MESSAGES = /timeout exceeded when waiting for a connection/i;

export const mysqlAdapter: DialectAdapter = {
  name: 'mysql',
  isUniqueViolation: anyErrno(1062), // ER_DUP_ENTRY
  // ER_NO_REFERENCED_ROW(_2): a missing parent; ER_ROW_IS_REFERENCED(_2): a restricted delete (as SQLite's one code).
  isForeignKeyViolation: anyErrno(1216, 1452, 1217, 1451),
  isConnectionError: isMysqlConnectionError,
  isNotReadyYet: (err) => isNotReadyYet(err, NOT_READY_CODES, NOT_READY_MESSAGES),
  // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD (bad string), ER_DATA_TOO_LONG: strict mode refuses instead of mangling.
  isInvalidValue: anyErrno(1366, 1406),
  isRetryable: anyErrno(1213, 1205), // deadlock, lock wait timeout: InnoDB rolled back the statement or transaction
  isTimeout: anyErrno(1969, 3024), // MariaDB's max_statement_time, MySQL's max_execution_time
  // Each statement of a write sees the latest commits once the namespace row lock is held.
  writeIsolation: 'read committed',
  // InnoDB's REPEATABLE READ: one snapshot for the evaluation model's reads.
  snapshotIsolation: 'repeatable read',
};

interface MysqlTarget {
  options: ConnectionOptions;
  database: string;
  describe: string;
}

/**
 * `mysql://user:password@host:port/database[?tls=true|skip-verify]`; the port defaults to 3306.
 * `tls` as Go's MySQL driver (Flipt's) spells it; other parameters are ignored.
 */
export function mysqlTarget(url: string, connectTimeoutMs = 0): MysqlTarget {
  const u = new URL(url);
  const tls = u.searchParams.get('tls') ?? '';
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (database === '') throw new Error('a mysql:// database URL must name a database (mysql://user:password@host:3306/name)');
  const port = u.port === '' ? 3306 : Number(u.port);
  return {
    database,
    describe: `mysql ${u.hostname}:${port}/${database}`,
    options: {
      host: u.hostname === '' ? 'localhost' : u.hostname.replace(/^\[(.*)\]$/, '$1'),
      port,
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      database,
      // Keys compare and sort byte-wise (the columns say utf8mb4_bin too); full Unicode.
      charset: 'UTF8MB4_BIN',
      // BIGINT (µs timestamps, COUNT) and DECIMAL as numbers; beyond 2^53 a BIGINT would be a string.
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: true,
      dateStrings: true,
      timezone: 'Z',
      // mysql2's default is 10 s; 0 there would mean "time out at once".
      connectTimeout: connectTimeoutMs > 0 ? connectTimeoutMs : 2 ** 31 - 1,
      enableKeepAlive: true,
      multipleStatements: false,
      ...(tls === 'true' && { ssl: {} }),
      ...(tls === 'skip-verify' && { ssl: { rejectUnauthorized: false } }),
    },
  };
}

type Mysql2 = typeof import('mysql2');

async function loadMysql(): Promise<Mysql2> {
  const mod = (await import('mysql2')) as Mysql2 & { default?: Mysql2 };
  return mod.default ?? mod;
}

/** GET_LOCK names are limited to 64 characters. */
const lockName = (database: string) => `pennon_migrate_${database}`.slice(0, 64);

/**
 * A pooled connection as Kysely sees it, each statement under the client-side deadline: one that
 * misses it resets the connection (the server rolls back the transaction it had begun, and a
 * statement still held in the network is never delivered), fails every later statement on it at
 * once — the ROLLBACK included — and is destroyed on release instead of going back to the pool.
 */
function deadlineConnection(conn: PoolConnection, deadlineMs: number): PoolConnection {
  let broken: DeadlineExceeded | undefined;
  const guarded = {
    query(text: string, values: unknown[], callback: (err: unknown, result?: unknown) => void) {
      if (broken) return void callback(broken);
      const work = new Promise<unknown>((resolve, reject) => conn.query(text, values, (err, result) => (err ? reject(err) : resolve(result))));
      withDeadline(work, deadlineMs, 'a MySQL statement', (err) => {
        broken = err;
        resetSocket((conn as unknown as { stream?: import('node:net').Socket }).stream);
      }).then(
        (result) => callback(null, result),
        (err: unknown) => callback(err),
      );
    },
    release() {
      if (broken) conn.destroy(); // leaves the pool, which opens a fresh one when needed
      else conn.release();
    },
  };
  return guarded as unknown as PoolConnection;
}

export function openMysql(url: string, options: PoolOptions): Connection {
  const target = mysqlTarget(url, options.connectTimeoutMs);
  const { max, idle } = poolSizes(options);
  const deadlineMs = clientDeadlineMs(options);
  let loaded: Promise<{ mysql: Mysql2; pool: Pool }> | undefined;
  let opened: Pool | null = null;
  const born = new WeakMap<object, number>();

  const load = () =>
    (loaded ??= loadMysql().then((mysql) => {
      const pool = mysql.createPool({ ...target.options, connectionLimit: max, maxIdle: idle, idleTimeout: IDLE_TIMEOUT_MS, waitForConnections: true });
      pool.on('connection', (conn) => {
        born.set(conn, Date.now());
        // mysql2 listens for one 'error' per pooled connection; a second one (a write after the
        // connection died) would be unhandled and end the process.
        conn.on('error', () => undefined);
        // MariaDB cancels a statement past db.statement_timeout itself (the connection stays
        // usable); MySQL has no such setting for writes (error 1193, ignored): there the
        // client-side deadline alone applies. Queued before the connection is handed out.
        if (options.statementTimeoutMs > 0) conn.query('SET SESSION max_statement_time = ?', [options.statementTimeoutMs / 1000], () => undefined);
      });
      opened = pool;
      return { mysql, pool };
    }));

  /** A pooled connection, never older than conn_max_lifetime; failures to get one are marked. */
  const acquire = async (): Promise<PoolConnection> => {
    const { pool } = await load();
    for (;;) {
      const conn = await new Promise<PoolConnection>((resolve, reject) => {
        // mysql2 queues a request for a busy pool without a time limit: give up after ours,
        // and hand back a connection that arrives too late.
        let settled = false;
        const timer = setTimeout(() => {
          settled = true;
          reject(markConnectFailure(Object.assign(new Error('timeout exceeded when waiting for a connection'), { code: 'ETIMEDOUT' })));
        }, acquireTimeoutMs(options));
        pool.getConnection((err, c) => {
          if (settled) return void (err ? undefined : c.release());
          settled = true;
          clearTimeout(timer);
          if (err) reject(markConnectFailure(err));
          else resolve(c);
        });
      });
      const age = Date.now() - (born.get(conn) ?? Date.now());
      if (options.maxLifetimeMs > 0 && age >= options.maxLifetimeMs) {
        conn.destroy(); // leaves the pool; the next round opens a fresh one
        continue;
      }
      return conn;
    }
  };

  const kyselyPool = async (): Promise<MysqlPool> => {
    const { pool } = await load();
    return {
      getConnection: (callback) => {
        acquire().then((conn) => callback(null, deadlineConnection(conn, deadlineMs) as never), (err: unknown) => callback(err, undefined as never));
      },
      end: (callback) => (pool.end as (cb: (err: unknown) => void) => void)(callback),
    };
  };
  const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool: kyselyPool }) });

  const query = (conn: PoolConnection | RawConnection, text: string, params: unknown[] = []) =>
    new Promise<unknown>((resolve, reject) => conn.query(text, params, (err, result) => (err ? reject(err) : resolve(result))));

  /** A named lock held by a connection of its own, for as long as `fn` runs. */
  async function withGetLock<T>(fn: () => Promise<T>): Promise<T> {
    const { mysql } = await load();
    const conn = mysql.createConnection(target.options);
    conn.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => conn.connect((err) => (err ? reject(markConnectFailure(err)) : resolve())));
    const name = lockName(target.database);
    try {
      // GET_LOCK waits up to 60 s; 0 means it timed out (another instance migrates slowly): wait again.
      for (;;) {
        const rows = (await query(conn, 'SELECT GET_LOCK(?, 60) AS got', [name])) as { got: number | null }[];
        if (Number(rows[0]?.got) === 1) break;
        if (rows[0]?.got === null) throw new Error('GET_LOCK failed');
        await sleep(100);
      }
      try {
        return await fn();
      } finally {
        await query(conn, 'SELECT RELEASE_LOCK(?)', [name]).catch(() => undefined);
      }
    } finally {
      await new Promise<void>((resolve) => conn.end(() => resolve()));
    }
  }

  /** The health probe's own connection (never the pool's: a busy pool must not look like a dead database). */
  const giveUpMs = options.connectTimeoutMs > 0 ? options.connectTimeoutMs : FALLBACK_ACQUIRE_MS;
  const probes = probeSessions(async () => {
    const { mysql } = await load();
    // mysql2 connects as soon as the connection is made: it is made in connect(), and reset
    // destroys whatever there is by then.
    let conn: RawConnection | null = null;
    return {
      connect: () =>
        new Promise<void>((resolve, reject) => {
          conn = mysql.createConnection({ ...target.options, connectTimeout: giveUpMs });
          conn.on('error', () => undefined);
          conn.connect((err) => (err ? reject(markConnectFailure(err)) : resolve()));
        }),
      ask: async () => void (await query(conn!, 'SELECT 1')),
      reset: () => {
        resetSocket((conn as unknown as { stream?: import('node:net').Socket } | null)?.stream);
        conn?.destroy();
      },
      end: async () => conn?.destroy(),
    };
  }, giveUpMs);

  return {
    db,
    adapter: mysqlAdapter,
    probe: (timeoutMs) => probes.probe(timeoutMs),
    describe: target.describe,
    poolStats: () => mysqlPoolStats(opened),
    transactionalDdl: false, // MySQL commits each DDL statement on its own
    runScript: async (script) => {
      const conn = await acquire();
      try {
        // DDL may be slow: no statement timeout here; the connection is dropped after, with its setting.
        if (options.statementTimeoutMs > 0) await query(conn, 'SET SESSION max_statement_time = 0').catch(() => undefined);
        for (const statement of splitStatements(script)) await query(conn, statement);
      } finally {
        conn.destroy();
      }
    },
    hasTable: async (name) => {
      const rows = await sql<{ one: number }>`SELECT 1 AS one FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ${name}`.execute(db);
      return rows.rows.length > 0;
    },
    withMigrationLock: withGetLock,
    close: async () => {
      await probes.close();
      await db.destroy();
      if (loaded) {
        const { pool } = await loaded;
        // Kysely ends the pool only if it ever used it.
        await new Promise<void>((resolve) => pool.end(() => resolve()));
      }
    },
  };
}

/** mysql2 keeps its pool's queues private; read their lengths defensively (0 when absent). */
function mysqlPoolStats(pool: Pool | null): { total: number; idle: number; waiting: number } {
  const inner = (pool ?? {}) as unknown as { _allConnections?: { length: number }; _freeConnections?: { length: number }; _connectionQueue?: { length: number } };
  return { total: inner._allConnections?.length ?? 0, idle: inner._freeConnections?.length ?? 0, waiting: inner._connectionQueue?.length ?? 0 };
}
