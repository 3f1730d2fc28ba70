import type { Kysely } from 'kysely';
import type { DialectAdapter } from './dialects/adapter';
import type { Database } from './tables';

/** An open database: the Kysely handle plus what only the driver can do. */
export interface Connection {
  db: Kysely<Database>;
  adapter: DialectAdapter;
  /** Human-readable target for logs, without credentials. */
  describe: string;
  /**
   * Runs a multi-statement SQL script (a migration): in one transaction where DDL is
   * transactional (SQLite, PostgreSQL), statement by statement where it is not.
   */
  runScript(script: string): Promise<void>;
  /** False where a failed migration can leave some of its statements applied (MySQL, CockroachDB). */
  readonly transactionalDdl: boolean;
  /** Whether a table exists in the current schema/database, without ever failing a transaction. */
  hasTable(name: string): Promise<boolean>;
  /** Holds a cross-process lock while `fn` runs, so that one instance migrates. */
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Asks the database one trivial question on a connection of the probe's own (never the
   * pool's: a busy pool is not a dead database), within `timeoutMs`; rejects when it cannot be
   * reached or does not answer in time. Absent where nothing can be partitioned away (SQLite).
   */
  probe?(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
  /** Connections of the pool (for metrics); absent where there is no pool (SQLite). */
  poolStats?(): { total: number; idle: number; waiting: number };
}
