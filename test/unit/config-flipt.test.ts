import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configFileCandidates, findConfigFile, loadConfig } from '../../internal/config';

/**
 * A Flipt v1 deployment's configuration, read as Flipt's loader reads it: FLIPT_* variables with
 * Flipt's mapping (PENNON_* winning, with a warning naming both), and file values converted as
 * Flipt's weakly typed decoding converts them.
 */

function yamlFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-flipt-config-'));
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

describe('FLIPT_* environment variables', () => {
  it('set the keys Flipt maps them to', () => {
    const { config, warnings } = loadConfig({
      env: {
        FLIPT_SERVER_HTTP_PORT: '9090',
        FLIPT_DB_URL: 'postgres://flipt@db:5432/flipt',
        FLIPT_AUTHENTICATION_REQUIRED: 'true',
        FLIPT_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'T',
        FLIPT_CACHE_TTL: '30s',
        FLIPT_CORS_ALLOWED_ORIGINS: 'https://a.example https://b.example',
      },
    });
    expect(config.server.http_port).toBe(9090);
    expect(config.db.url).toBe('postgres://flipt@db:5432/flipt');
    expect(config.authentication.required).toBe(true);
    expect(config.authentication.methods.token.enabled).toBe(true);
    expect(config.cache.ttl).toBe(30_000);
    expect(config.cors.allowed_origins).toEqual(['https://a.example', 'https://b.example']);
    expect(warnings).toEqual([]);
  });

  it('PENNON_* wins where both set a key, with a warning naming both', () => {
    const { config, warnings } = loadConfig({ env: { FLIPT_SERVER_HTTP_PORT: '9090', PENNON_SERVER_HTTP_PORT: '9191', FLIPT_SERVER_GRPC_PORT: '9292' } });
    expect(config.server.http_port).toBe(9191);
    expect(config.server.grpc_port).toBe(9292);
    expect(warnings).toEqual(['PENNON_SERVER_HTTP_PORT and FLIPT_SERVER_HTTP_PORT both set server.http_port: PENNON_SERVER_HTTP_PORT is used']);
  });

  it('a FLIPT_* value of the wrong type is an error naming the variable', () => {
    expect(problemsOf(() => loadConfig({ env: { FLIPT_SERVER_HTTP_PORT: 'eighty' } }))).toEqual([expect.stringMatching(/^server\.http_port \(from FLIPT_SERVER_HTTP_PORT\): /)]);
  });
});

describe('a configuration file read as Flipt reads it', () => {
  it('converts quoted numbers and booleans, numbers where text is expected, and text lists', () => {
    const path = yamlFile(
      [
        'server:',
        '  http_port: "8081"',
        '  grpc_port: "9001"',
        'authentication:',
        '  required: "true"',
        '  methods:',
        '    token:',
        '      enabled: "1"',
        'cors:',
        '  enabled: "t"',
        '  allowed_origins: "https://a.example https://b.example"',
        'db:',
        '  max_open_conn: "20"',
        '  name: 42',
        '',
      ].join('\n'),
    );
    const { config } = loadConfig({ path, env: {} });
    expect(config.server.http_port).toBe(8081);
    expect(config.server.grpc_port).toBe(9001);
    expect(config.authentication.required).toBe(true);
    expect(config.authentication.methods.token.enabled).toBe(true);
    expect(config.cors).toMatchObject({ enabled: true, allowed_origins: ['https://a.example', 'https://b.example'] });
    expect(config.db.max_open_conn).toBe(20);
    expect(config.db.name).toBe('42');
  });

  it('still refuses what does not convert, naming the key', () => {
    const path = yamlFile('server:\n  http_port: "eighty"\nauthentication:\n  required: "maybe"\n');
    const problems = problemsOf(() => loadConfig({ path, env: {} }));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^server\.http_port: /);
    expect(problems[1]).toMatch(/^authentication\.required: /);
  });
});

describe("FLIPT_* variables for Flipt's keys Pennon lacks", () => {
  it('are warned about by name, and Flipt-only values mapped', () => {
    const { config, warnings } = loadConfig({ env: { FLIPT_LOG_GRPC_LEVEL: 'debug', FLIPT_TRACING_EXPORTER: 'jaeger', FLIPT_NOT_A_KEY: '1' } });
    expect(config.tracing.exporter).toBe('otlp');
    expect(warnings).toEqual([
      'tracing.exporter: jaeger is not implemented; traces are exported over OTLP (tracing.otlp.endpoint), which Jaeger accepts',
      "environment variable FLIPT_LOG_GRPC_LEVEL: Flipt's setting, not implemented by Pennon (gRPC's own log lines are written at debug level); ignored",
      "environment variable FLIPT_NOT_A_KEY names no configuration key of Pennon's or Flipt's; ignored",
    ]);
  });
});

describe('where a configuration file is looked for without --config', () => {
  it("Flipt's locations in Flipt's order, then Pennon's own", () => {
    expect(configFileCandidates({ XDG_CONFIG_HOME: '/home/u/.config' })).toEqual([
      '/home/u/.config/flipt/config.yml',
      '/etc/flipt/config/default.yml',
      '/home/u/.config/pennon/config.yml',
      '/etc/pennon/config.yml',
    ]);
  });

  it('the first that exists', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pennon-find-'));
    const env = { XDG_CONFIG_HOME: dir };
    const present = new Set<string>();
    const exists = (path: string) => present.has(path);
    expect(findConfigFile(env, exists)).toBeUndefined();
    present.add(join(dir, 'pennon', 'config.yml'));
    expect(findConfigFile(env, exists)).toBe(join(dir, 'pennon', 'config.yml'));
    present.add('/etc/flipt/config/default.yml');
    expect(findConfigFile(env, exists)).toBe('/etc/flipt/config/default.yml');
    present.add(join(dir, 'flipt', 'config.yml'));
    expect(findConfigFile(env, exists)).toBe(join(dir, 'flipt', 'config.yml'));
  });
});

describe('server.protocol: https', () => {
  it('needs its certificate and key, and says which is missing or absent', () => {
    const missing = problemsOf(() => loadConfig({ env: { PENNON_SERVER_PROTOCOL: 'https' } }));
    expect(missing).toEqual(['server.cert_file: required when server.protocol is https (a PEM file)', 'server.cert_key: required when server.protocol is https (a PEM file)']);
    const absent = problemsOf(() => loadConfig({ env: { FLIPT_SERVER_PROTOCOL: 'https', FLIPT_SERVER_CERT_FILE: '/nonexistent/cert.pem', FLIPT_SERVER_CERT_KEY: '/nonexistent/key.pem' } }));
    expect(absent).toEqual(['server.cert_file: /nonexistent/cert.pem does not exist', 'server.cert_key: /nonexistent/key.pem does not exist']);
    expect(problemsOf(() => loadConfig({ env: { PENNON_SERVER_PROTOCOL: 'HTTPS' } }))[0]).toMatch(/^server\.protocol \(from PENNON_SERVER_PROTOCOL\): expected one of "http"\|"https"/);
  });
});
