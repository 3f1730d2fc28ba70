import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../internal/config';

/**
 * Flipt v1.61.1's configuration cases (test/fixtures/flipt-config, rewritten from Flipt's
 * `internal/config/testdata`): each one Flipt accepts loads here — Flipt's keys Pennon does not
 * implement set aside with a warning each, never an error — and means what it means in Flipt.
 * The storage types Pennon cannot serve flags from (local, object, OCI; Git over ssh) load too,
 * with one warning saying that flags come from the database instead and how to bring them there.
 */

const DIR = resolve(__dirname, '../fixtures/flipt-config');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return name.endsWith('.yml') ? [relative(DIR, path)] : [];
  });
}

const SERVED_FROM_DATABASE = (c: Config) => {
  expect(c.storage.type).toBe('database');
  expect(c.environments).toEqual({});
};

const load = (file: string, env: NodeJS.ProcessEnv = {}) => loadConfig({ path: join(DIR, file), env });

/** What each accepted case must mean (the keys Pennon has), and warnings it must give. */
const EXPECTED: Record<string, { config?: (c: Config) => void; warnings?: RegExp[] }> = {
  'advanced.yml': {
    config: (c) => {
      expect(c.log).toMatchObject({ level: 'warn', file: 'testLogFile.txt', encoding: 'json' });
      expect(c.cors).toMatchObject({ enabled: true, allowed_origins: ['foo.com', 'bar.com', 'baz.com'], allowed_headers: ['X-Some-Header', 'X-Some-Other-Header'] });
      expect(c.cache).toMatchObject({ enabled: true, backend: 'memory', ttl: 60_000 });
      expect(c.server).toMatchObject({ protocol: 'https', host: '127.0.0.1', http_port: 8081, https_port: 8080, grpc_port: 9001, cert_file: './test/fixtures/tls/cert.pem' });
      expect(c.tracing).toMatchObject({ enabled: true, exporter: 'otlp', otlp: { endpoint: 'localhost:4318' } });
      expect(c.db).toMatchObject({ url: 'postgres://postgres@localhost:5432/flipt?sslmode=disable', max_idle_conn: 10, max_open_conn: 50, conn_max_lifetime: 1_800_000 });
      expect(c.authentication.required).toBe(true);
      expect(c.authentication.methods.token).toMatchObject({ enabled: true, cleanup: { interval: 7_200_000, grace_period: 172_800_000 } });
      // Flipt v1's Git storage, as Flipt v2's storage and environment.
      expect(c.storage.default).toMatchObject({ remote: 'https://github.com/flipt-io/flipt.git', branch: 'production', poll_interval: 5000, credentials: 'default' });
      expect(c.credentials.default).toMatchObject({ type: 'basic', basic: { username: 'user', password: 'pass' } });
      expect(c.environments.default).toMatchObject({ storage: 'default', default: true });
      expect(c.audit).toMatchObject({ sinks: { log: { enabled: true, file: '/path/to/logs.txt' } }, buffer: { capacity: 10, flush_period: 180_000 }, events: ['*:*'] });
      expect(c.authentication.session).toMatchObject({ domain: 'auth.flipt.io', secure: true, csrf: { key: 'abcdefghijklmnopqrstuvwxyz1234567890' } });
      expect(c.authentication.methods.oidc).toMatchObject({ enabled: true, providers: { google: { issuer_url: 'http://accounts.google.com', client_id: 'abcdefg', redirect_address: 'http://auth.flipt.io' } } });
      expect(c.authentication.methods.kubernetes).toMatchObject({ enabled: true, discovery_url: 'https://some-other-k8s.namespace.svc', ca_path: '/path/to/ca/certificate/ca.pem' });
      expect(c.authentication.methods.github).toMatchObject({ enabled: true, client_id: 'abcdefg', redirect_address: 'http://auth.flipt.io' });
      expect(c.authorization.required).toBe(true);
    },
    warnings: [
      /^log\.keys: /,
      /^meta: /,
      /^authorization\.backend: .*Rego policies are not run: Pennon's built-in roles apply/,
      /^authorization\.local: /,
      /^experimental: /,
      /^storage\.type: git/,
    ],
  },
  'audit/enable_without_file.yml': { config: (c) => expect(c.audit.sinks.log).toMatchObject({ enabled: true, file: '' }), warnings: [] },
  'audit/valid_kafka.yml': { config: (c) => expect(c.audit.sinks.webhook.enabled).toBe(false), warnings: [/^audit\.sinks\.kafka: Flipt's setting, not implemented by Pennon/] },
  'database.yml': { config: (c) => expect(c.db).toMatchObject({ protocol: 'mysql', host: 'localhost', port: 3306, name: 'flipt', user: 'flipt', password: 's3cr3t!' }) },
  'authentication/token_bootstrap_token.yml': { config: (c) => expect(c.authentication.methods.token.bootstrap).toMatchObject({ token: 's3cr3t!', expiration: 86_400_000 }), warnings: [] },
  'cache/redis.yml': { config: (c) => expect(c.cache.redis).toMatchObject({ host: 'localhost', port: 6378, require_tls: true, db: 1, pool_size: 50, min_idle_conn: 2, conn_max_idle_time: 600_000, net_timeout: 500 }), warnings: [] },
  'cache/redis-ca-bytes.yml': { config: (c) => expect(c.cache.redis.ca_cert_bytes).toBe('pemblock\n') },
  'deprecated/tracing_jaeger.yml': { config: (c) => expect(c.tracing).toMatchObject({ enabled: true, exporter: 'otlp' }), warnings: [/^tracing\.exporter: jaeger is not implemented; traces are exported over OTLP/] },
  'deprecated/ui_disabled.yml': { config: (c) => expect(c.ui.enabled).toBe(false), warnings: [] },
  'metrics/otlp.yml': { config: (c) => expect(c.metrics.exporter).toBe('prometheus'), warnings: [/^metrics\.exporter: otlp is not implemented/, /^metrics\.otlp: /] },
  'server/grpc_keepalive.yml': { config: (c) => expect(c.server).toMatchObject({ grpc_conn_max_idle_time: 3_600_000, grpc_conn_max_age: 30_000, grpc_conn_max_age_grace: 10_000 }), warnings: [] },
  'storage/git_provided_with_directory.yml': { config: (c) => expect(c.environments.default).toMatchObject({ storage: 'default', directory: 'baz' }) },
  'storage/git_provided_with_ref_type.yml': { warnings: [/^storage\.git\.ref_type: /, /^storage\.type: git/] },
  'storage/git_provided_with_backend_type.yml': { config: (c) => expect(c.storage.default).toMatchObject({ backend: { type: 'local', path: '/path/to/gitdir' } }) },
  'storage/git_token_auth.yml': { config: (c) => expect(c.credentials.default).toMatchObject({ type: 'access_token', access_token: 'abc123' }) },
  'tracing/otlp.yml': { config: (c) => expect(c.tracing).toMatchObject({ sampling_ratio: 0.5, otlp: { endpoint: 'http://localhost:9999', headers: { 'api-key': 'test-key' } } }), warnings: [] },
  'tracing/zipkin.yml': { warnings: [/^tracing\.exporter: zipkin is not implemented/, /^tracing\.zipkin: /] },
  'ui/topbar_color.yml': { warnings: [/^ui\.topbar: /] },
  'authentication/kubernetes.yml': {
    config: (c) => expect(c.authentication).toMatchObject({ required: true, methods: { token: { enabled: false }, kubernetes: { enabled: true, discovery_url: 'https://kubernetes.default.svc.cluster.local' } } }),
    warnings: [],
  },
  'authentication/session_domain_scheme_port.yml': { config: (c) => expect(c.authentication.session.domain).toBe('localhost'), warnings: [] },
  'authentication/github_case_sensitive.yml': { config: (c) => expect(c.authentication.methods.github).toMatchObject({ allowed_organizations: ['MyOrg'], allowed_teams: { MyOrg: ['team'] } }), warnings: [] },
  'authentication/oidc.yml': { config: (c) => expect(Object.keys(c.authentication.methods.oidc.providers)).toEqual(['foo', 'bar']), warnings: [] },
  'version/v1.yml': { config: (c) => expect(c.version).toBe('1.0'), warnings: [] },
  'storage/local_provided.yml': {
    config: SERVED_FROM_DATABASE,
    warnings: [/^storage\.type: local \(Flipt v1's local storage\) is not implemented by Pennon: flags are served from the database \(db\.url\) instead; bring them there with `pennon flag import`/],
  },
  'storage/s3_full.yml': { config: SERVED_FROM_DATABASE, warnings: [/^storage\.type: object \(Flipt v1's object storage\) is not implemented by Pennon: flags are served from the database/] },
  'storage/oci_provided.yml': { config: SERVED_FROM_DATABASE, warnings: [/^storage\.type: oci \(Flipt v1's oci storage\) is not implemented by Pennon: flags are served from the database/] },
  'storage/git_provided_ssh_url.yml': {
    config: SERVED_FROM_DATABASE,
    warnings: [/^storage\.git\.repository: git@github\.com:foo\/bar\.git is fetched over SSH, which Pennon does not implement: flags are served from the database \(db\.url\) instead; use the repository's https:\/\/ address/],
  },
};

describe("Flipt v1.61.1's configuration cases", () => {
  const files = yamlFiles(DIR);
  it('has every case', () => expect(files.length).toBeGreaterThanOrEqual(40));

  for (const file of files) {
    it(`${file}: loads`, () => {
      const env = file === 'envsubst.yml' ? { HTTP_PORT: '18080', LOG_FORMAT: 'json' } : {};
      const { config, warnings } = load(file, env);
      const expected = EXPECTED[file];
      expected?.config?.(config);
      if (expected?.warnings) {
        expect(warnings).toHaveLength(expected.warnings.length);
        for (const pattern of expected.warnings) expect(warnings).toContainEqual(expect.stringMatching(pattern));
      }
      if (file === 'envsubst.yml') expect([config.server.http_port, config.log.encoding]).toEqual([18080, 'json']);
    });
  }
});
