import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultDatabaseUrl, formatDuration, loadConfig, parseDuration, publicConfig } from '../../internal/config';

function yamlFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-config-'));
  const path = join(dir, 'config.yml');
  writeFileSync(path, text);
  return path;
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('has Flipt-like defaults and a per-user SQLite file', () => {
    const { config } = loadConfig({ env: { HOME: '/home/ada' }, isTTY: false });
    expect(config.server).toEqual({
      host: '0.0.0.0',
      protocol: 'http',
      http_port: 8080,
      https_port: 443,
      cert_file: '',
      cert_key: '',
      grpc_port: 9000,
      shutdown_timeout: 5000,
      grpc_conn_max_idle_time: 0,
      grpc_conn_max_age: 0,
      grpc_conn_max_age_grace: 0,
      grpc_max_recv_msg_size: 4 * 1024 * 1024,
      grpc_max_send_msg_size: 2147483647,
      max_body_bytes: 1048576,
      max_import_bytes: 33554432,
      workers: 0,
    });
    expect(config.log).toMatchObject({ level: 'info', encoding: 'json', file: '', access: false });
    expect(config.db.url).toBe(defaultDatabaseUrl({ HOME: '/home/ada' }));
    expect(config.db.url).toMatch(/^file:.*pennon\/pennon\.db$/);
    expect(config.db).toMatchObject({ max_idle_conn: 2, max_open_conn: 0, prepared_statements_enabled: true });
  });

  it('uses XDG_DATA_HOME for the default database when set', () => {
    expect(defaultDatabaseUrl({ XDG_DATA_HOME: '/data' })).toBe('file:/data/pennon/pennon.db');
  });

  it('defaults to console logs on a terminal', () => {
    expect(loadConfig({ env: {}, isTTY: true }).config.log.encoding).toBe('console');
  });

  it('reads a YAML file with the same tree as Flipt', () => {
    const path = yamlFile('log:\n  level: DEBUG\n  encoding: json\nserver:\n  http_port: 9090\n  shutdown_timeout: 1m30s\ndb:\n  url: file:/tmp/x.db\n');
    const { config } = loadConfig({ path, env: {} });
    expect(config.log.level).toBe('debug');
    expect(config.server.http_port).toBe(9090);
    expect(config.server.shutdown_timeout).toBe(90_000);
    expect(config.db.url).toBe('file:/tmp/x.db');
  });

  it('lets PENNON_* variables override the file, mapping underscores to nested keys', () => {
    const path = yamlFile('server:\n  http_port: 9090\n');
    const { config, warnings } = loadConfig({
      path,
      env: {
        PENNON_SERVER_HTTP_PORT: '7070',
        PENNON_DB_URL: 'file:/tmp/env.db',
        PENNON_LOG_LEVEL: 'warn',
        PENNON_DB_MAX_OPEN_CONN: '12',
        PENNON_DB_PREPARED_STATEMENTS_ENABLED: 'false',
        PENNON_NOT_A_KEY: 'x',
        PENNON_TEST_POSTGRES_URL: 'postgres://ignored',
      },
    });
    expect(config.server.http_port).toBe(7070);
    expect(config.db.url).toBe('file:/tmp/env.db');
    expect(config.log.level).toBe('warn');
    expect(config.db.max_open_conn).toBe(12);
    expect(config.db.prepared_statements_enabled).toBe(false);
    expect(warnings).toEqual(['environment variable PENNON_NOT_A_KEY names no configuration key; ignored']);
  });

  it('rejects unknown keys and wrong types, naming every key', () => {
    const path = yamlFile('server:\n  htp_port: 1\n  http_port: abc\nlog:\n  encoding: xml\nbogus: 1\n');
    const problems = problemsOf(() => loadConfig({ path, env: {} }));
    expect(problems).toEqual(
      expect.arrayContaining([
        'server.htp_port: unknown key',
        expect.stringMatching(/^server\.http_port: expected number/),
        expect.stringMatching(/^log\.encoding: expected one of/),
        'bogus: unknown key',
      ]),
    );
    expect(problems).toHaveLength(4);
  });

  it('rejects a wrong type from the environment with the key name', () => {
    expect(problemsOf(() => loadConfig({ env: { PENNON_SERVER_HTTP_PORT: 'eighty' } }))).toEqual([
      expect.stringMatching(/^server\.http_port \(from PENNON_SERVER_HTTP_PORT\): expected number/),
    ]);
  });

  it('rejects tracing settings out of range, naming the key', () => {
    expect(problemsOf(() => loadConfig({ env: { PENNON_TRACING_SAMPLING_RATIO: '2' } }))).toEqual([
      expect.stringMatching(/^tracing\.sampling_ratio \(from PENNON_TRACING_SAMPLING_RATIO\): .*1/),
    ]);
    expect(problemsOf(() => loadConfig({ env: { PENNON_TRACING_PROPAGATORS: 'tracecontext nope' } }))).toEqual([
      expect.stringMatching(/^tracing\.propagators\.1: expected one of "tracecontext"/),
    ]);
  });

  it('reports YAML syntax errors and an unreadable file', () => {
    expect(problemsOf(() => loadConfig({ path: yamlFile('server: [1,\n'), env: {} }))[0]).toMatch(/config\.yml/);
    expect(problemsOf(() => loadConfig({ path: '/nonexistent/pennon.yml', env: {} }))).toEqual([
      'cannot read /nonexistent/pennon.yml: ENOENT',
    ]);
  });

  it('substitutes ${VAR} values from the environment', () => {
    const path = yamlFile('db:\n  url: ${MY_DB}\n');
    expect(loadConfig({ path, env: { MY_DB: 'file:/tmp/sub.db' } }).config.db.url).toBe('file:/tmp/sub.db');
    expect(problemsOf(() => loadConfig({ path, env: {} }))).toEqual(['db.url: environment variable MY_DB is not set']);
  });

  it('rejects a bad duration and an out-of-range port', () => {
    const problems = problemsOf(() =>
      loadConfig({ env: { PENNON_SERVER_SHUTDOWN_TIMEOUT: 'soon', PENNON_SERVER_HTTP_PORT: '70000' } }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/^server\.shutdown_timeout \(from PENNON_SERVER_SHUTDOWN_TIMEOUT\): "soon" is not a duration/),
        expect.stringMatching(/^server\.http_port \(from PENNON_SERVER_HTTP_PORT\): /),]),
    );
  });
});

describe('durations', () => {
  it('parses Go durations', () => {
    expect(parseDuration('300ms')).toBe(300);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('10')).toBeNull();
    expect(parseDuration('1d')).toBeNull();
    expect(parseDuration('')).toBeNull();
  });

  it('formats them back', () => {
    expect(formatDuration(5_400_000)).toBe('1h30m');
    expect(formatDuration(1500)).toBe('1s500ms');
    expect(formatDuration(0)).toBe('0s');
  });
});

describe('license', () => {
  it('reads PENNON_LICENSE_KEY and PENNON_LICENSE_FILE, accepts machine_id, and hides the key from the public view', () => {
    const { config } = loadConfig({ env: { PENNON_LICENSE_KEY: 'abc.def', PENNON_LICENSE_MACHINE_ID: 'm-1' } });
    expect(config.license).toEqual({ key: 'abc.def', file: '', machine_id: 'm-1' });
    expect(loadConfig({ env: { PENNON_LICENSE_FILE: '/etc/pennon/licence' } }).config.license.file).toBe('/etc/pennon/licence');
    const shown = publicConfig(config) as { license?: Record<string, unknown> };
    expect(JSON.stringify(shown)).not.toContain('abc.def');
    expect(shown.license?.key).toBeUndefined();
  });

  it('defaults to no licence', () => {
    expect(loadConfig({ env: {} }).config.license).toEqual({ key: '', file: '', machine_id: '' });
  });
});
