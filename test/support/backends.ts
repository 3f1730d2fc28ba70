import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';

/**
 * The databases a suite runs against. SQLite always; PostgreSQL (and the CockroachDB dialect
 * on that PostgreSQL server) when PENNON_TEST_POSTGRES_URL is set; MySQL/MariaDB when
 * PENNON_TEST_MYSQL_URL is set (CI sets them all). Each `create()` gives a fresh, empty
 * database — a new schema on PostgreSQL, a new database on MySQL — and a cleanup that drops it.
 */
export interface Backend {
  name: BackendName;
  create(): Promise<CreatedDatabase>;
}

export interface CreatedDatabase {
  url: string;
  /** What the test database is called on its server (schema or database name; the file for SQLite). */
  name: string;
  cleanup(): Promise<void>;
}

export type BackendName = 'sqlite' | 'postgres' | 'mysql' | 'cockroach-on-postgres';

export const POSTGRES_URL = process.env.PENNON_TEST_POSTGRES_URL ?? '';
export const MYSQL_URL = process.env.PENNON_TEST_MYSQL_URL ?? '';
export const REDIS_URL = process.env.PENNON_TEST_REDIS_URL ?? '';

const uniqueName = () => `pennon_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;

const sqlite: Backend = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'pennon-db-'));
    const file = join(dir, 'pennon.db');
    return { url: `file:${file}`, name: file, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

/** Runs statements on the PostgreSQL server as the test URL's user, on a connection of its own. */
export async function postgresAdmin<T = unknown>(statement: string, params: unknown[] = [], url = POSTGRES_URL): Promise<T[]> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(statement, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Runs a statement on the MySQL server as the test URL's user. */
export async function mysqlAdmin<T = unknown>(statement: string, params: unknown[] = []): Promise<T[]> {
  const { default: mysql } = await import('mysql2/promise');
  const u = new URL(MYSQL_URL);
  const conn = await mysql.createConnection({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  });
  try {
    const [rows] = await conn.query(statement, params);
    return rows as T[];
  } finally {
    await conn.end();
  }
}

/** The server's URL with `search_path` set to `schema` for every connection (libpq's `options`). */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

function postgresSchema(name: 'postgres' | 'cockroach-on-postgres'): Backend {
  return {
    name,
    async create() {
      const schema = uniqueName();
      await postgresAdmin(`CREATE SCHEMA ${schema}`);
      let url = withSearchPath(POSTGRES_URL, schema);
      // The same server through the CockroachDB dialect: its adapter, SQL and migrations.
      if (name === 'cockroach-on-postgres') url = url.replace(/^postgres(ql)?:/, 'cockroach:');
      return { url, name: schema, cleanup: async () => void (await postgresAdmin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)) };
    },
  };
}

const mysql: Backend = {
  name: 'mysql',
  async create() {
    const database = uniqueName();
    await mysqlAdmin(`CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    const u = new URL(MYSQL_URL);
    u.pathname = `/${database}`;
    return { url: u.toString(), name: database, cleanup: async () => void (await mysqlAdmin(`DROP DATABASE IF EXISTS ${database}`)) };
  },
};

/** One visible line per process for each back end left out, unless the vitest config said it already. */
const noticed = new Set<string>();
function notice(variable: string, what: string): void {
  if (noticed.has(variable) || process.env.PENNON_TEST_NOTICES_SHOWN === '1') return;
  noticed.add(variable);
  console.warn(`${variable} not set: ${what} skipped`);
}

export function backends(): Backend[] {
  const list: Backend[] = [sqlite];
  if (POSTGRES_URL !== '') list.push(postgresSchema('postgres'), postgresSchema('cockroach-on-postgres'));
  else notice('PENNON_TEST_POSTGRES_URL', 'PostgreSQL and CockroachDB-dialect suites');
  if (MYSQL_URL !== '') list.push(mysql);
  else notice('PENNON_TEST_MYSQL_URL', 'MySQL suites');
  return list;
}

/** One back end by name; fails (rather than skips) when its variable is missing. */
export function backend(name: BackendName): Backend {
  const found = backends().find((b) => b.name === name);
  if (!found) throw new Error(`back end "${name}" requested but its PENNON_TEST_*_URL variable is not set`);
  return found;
}

/** The variable that brings each external back end in. */
export const VARIABLE_OF: Record<Exclude<BackendName, 'sqlite'>, string> = {
  postgres: 'PENNON_TEST_POSTGRES_URL',
  'cockroach-on-postgres': 'PENNON_TEST_POSTGRES_URL',
  mysql: 'PENNON_TEST_MYSQL_URL',
};

/** A title's note for a suite left out: `title (PENNON_TEST_X_URL not set)`, or the title as is. */
export function unless(title: string, variables: Record<string, string>): string {
  const missing = Object.entries(variables).filter(([, value]) => value === '').map(([name]) => name);
  return missing.length === 0 ? title : `${title} (${missing.join(' and ')} not set)`;
}

/**
 * `describe.each` for suites that only mean something on external databases: one suite per named
 * back end, `$name` in the title replaced by its name. A back end whose variable is unset is
 * declared all the same and skipped, titled with the variable to set, so the report shows what
 * did not run (and a file whose list came out empty does not fail with "No test suite found").
 */
export function describeOnExternal(names: Exclude<BackendName, 'sqlite'>[], title: string, suite: (backend: Backend) => void): void {
  const configured = backends();
  for (const name of names) {
    const named = title.replace('$name', name);
    const backend = configured.find((b) => b.name === name);
    if (backend) describe(named, () => suite(backend));
    else describe.skip(`${named} (${VARIABLE_OF[name]} not set)`, () => suite(unconfigured(name)));
  }
}

/** Stands in for a back end whose suite is skipped: it declares the tests, never runs them. */
function unconfigured(name: BackendName): Backend {
  return { name, create: () => Promise.reject(new Error(`back end "${name}" is not configured`)) };
}
