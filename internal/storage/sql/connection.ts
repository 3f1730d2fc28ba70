import type { Kysely } from 'kysely';
import type { DialectAdapter } from './context';
import type { Database } from './tables';

/** An open database: the Kysely handle plus what only the driver can do. */
export interface Connection {
  db: Kysely<Database>;
  adapter: DialectAdapter;
  /** Human-readable target for logs, without credentials. */
  describe: string;
  /** Runs a multi-statement SQL script (a migration). */
  runScript(script: string): Promise<void>;
  /** Holds a cross-process lock while `fn` runs, so that one instance migrates. */
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
