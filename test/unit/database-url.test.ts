import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../internal/config';
import { databaseUrl, poolOptions } from '../../internal/service/database';
import { mysqlTarget } from '../../internal/storage/sql/dialects/mysql';
import { poolSizes } from '../../internal/storage/sql/dialects/pool';
import { describeUrl, driverUrl } from '../../internal/storage/sql/dialects/postgres';

/** db.url forms and the protocol/host/… alternative (Flipt's `internal/config/database.go`), and pool settings. */
const config = (env: Record<string, string>) => loadConfig({ env }).config.db;

describe('database URLs', () => {
  it('builds a URL from protocol/host/port/name/user/password, with each protocol\'s default port', () => {
    const parts = { PENNON_DB_HOST: 'db.internal', PENNON_DB_NAME: 'flags', PENNON_DB_USER: 'pen non', PENNON_DB_PASSWORD: 'p@ss:word' };
    expect(databaseUrl(config({ ...parts, PENNON_DB_PROTOCOL: 'postgres' }))).toBe('postgres://pen%20non:p%40ss%3Aword@db.internal:5432/flags');
    expect(databaseUrl(config({ ...parts, PENNON_DB_PROTOCOL: 'postgresql' }))).toBe('postgresql://pen%20non:p%40ss%3Aword@db.internal:5432/flags');
    expect(databaseUrl(config({ ...parts, PENNON_DB_PROTOCOL: 'mysql' }))).toBe('mysql://pen%20non:p%40ss%3Aword@db.internal:3306/flags');
    expect(databaseUrl(config({ ...parts, PENNON_DB_PROTOCOL: 'cockroach' }))).toBe('cockroach://pen%20non:p%40ss%3Aword@db.internal:26257/flags');
    expect(databaseUrl(config({ ...parts, PENNON_DB_PROTOCOL: 'cockroachdb', PENNON_DB_PORT: '5555' }))).toBe('cockroachdb://pen%20non:p%40ss%3Aword@db.internal:5555/flags');
    expect(databaseUrl(config({ PENNON_DB_PROTOCOL: 'mysql', PENNON_DB_NAME: 'x' }))).toBe('mysql://localhost:3306/x');
    expect(databaseUrl(config({ PENNON_DB_PROTOCOL: 'sqlite', PENNON_DB_NAME: '/tmp/x.db' }))).toBe('file:/tmp/x.db');
    expect(databaseUrl(config({ PENNON_DB_URL: 'postgres://a@b/c', PENNON_DB_PROTOCOL: 'mysql' }))).toBe('postgres://a@b/c');
  });

  it('turns cockroach:// and cockroachdb:// into postgres:// for the driver, on port 26257 unless given', () => {
    expect(driverUrl('cockroach://root@crdb:26000/app?sslmode=disable', 'cockroach')).toBe('postgres://root@crdb:26000/app?sslmode=disable');
    expect(driverUrl('cockroachdb://root@crdb/app', 'cockroach')).toBe('postgres://root@crdb:26257/app');
    expect(driverUrl('postgresql://u@h/d', 'postgres')).toBe('postgresql://u@h/d');
    expect(describeUrl('postgres://user:secret@h:5432/d')).toBe('h:5432/d');
  });

  it('reads mysql:// URLs, with the credentials decoded and Go-style tls', () => {
    const t = mysqlTarget('mysql://us%40er:p%3Ass@db:3307/flags?tls=skip-verify&parseTime=true');
    expect(t.options).toMatchObject({ host: 'db', port: 3307, user: 'us@er', password: 'p:ss', database: 'flags', ssl: { rejectUnauthorized: false } });
    expect(mysqlTarget('mysql://u@db/flags').options.port).toBe(3306);
    expect(mysqlTarget('mysql://u@db/flags').options.ssl).toBeUndefined();
    expect(t.describe).toBe('mysql db:3307/flags');
    expect(() => mysqlTarget('mysql://u@db/')).toThrow(/must name a database/);
  });

  it('maps the pool settings: 0 open = 10, idle never above open, lifetime and timeouts in ms', () => {
    const db = config({ PENNON_DB_MAX_OPEN_CONN: '0', PENNON_DB_MAX_IDLE_CONN: '50', PENNON_DB_CONN_MAX_LIFETIME: '5m' });
    expect(poolOptions(db)).toEqual({ maxOpen: 0, maxIdle: 50, maxLifetimeMs: 300_000, preparedStatements: true, connectTimeoutMs: 5000, statementTimeoutMs: 5000 });
    expect(poolOptions(config({ PENNON_DB_STATEMENT_TIMEOUT: '1.5s', PENNON_DB_CONNECT_TIMEOUT: '0' }))).toMatchObject({ statementTimeoutMs: 1500, connectTimeoutMs: 0 });
    expect(poolSizes(poolOptions(db))).toEqual({ max: 10, idle: 10 });
    expect(poolSizes(poolOptions(config({ PENNON_DB_MAX_OPEN_CONN: '25' })))).toEqual({ max: 25, idle: 2 });
  });
});
