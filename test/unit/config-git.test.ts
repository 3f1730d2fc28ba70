import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, publicConfig, redactedConfig } from '../../internal/config';
import { gitStoragesOf } from '../../internal/config/git';

function yamlFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-config-git-'));
  const path = join(dir, 'config.yml');
  writeFileSync(path, text);
  return path;
}

const load = (text: string, env: NodeJS.ProcessEnv = {}) => loadConfig({ path: yamlFile(text), env, isTTY: false });

function problemsOf(text: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    load(text, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const FULL = `
credentials:
  gh: { access_token: tok-123 }
  user: { type: basic, basic: { username: ada, password: pw } }
storage:
  read_only: true
  flags:
    remote: https://git.example.com/acme/flags.git
    credentials: gh
    poll_interval: 5s
  other:
    remote: http://127.0.0.1:1/x.git
    branch: release
    credentials: user
    backend: { type: local, path: /var/lib/pennon/git }
environments:
  production: { storage: flags, directory: production, default: true, scm: { type: gitlab, webhook: { secret: s3cret } } }
  staging: { storage: flags, directory: staging, name: stage }
  qa: { storage: other }
`;

describe('Git configuration', () => {
  it('reads storages beside Flipt v1 keys, credentials and environments with defaults', () => {
    const { config } = load(FULL);
    expect(config.storage.type).toBe('database');
    expect(config.storage.read_only).toBe(true);
    const storages = gitStoragesOf(config.storage);
    expect([...storages.keys()]).toEqual(['flags', 'other']);
    expect(storages.get('flags')).toEqual({
      remote: 'https://git.example.com/acme/flags.git',
      branch: 'main',
      poll_interval: 5000,
      credentials: 'gh',
      ca_cert_path: '',
      ca_cert_bytes: '',
      insecure_skip_tls: false,
      backend: { type: 'memory', path: '' },
    });
    expect(storages.get('other')).toMatchObject({ branch: 'release', poll_interval: 30_000, backend: { type: 'local', path: '/var/lib/pennon/git' } });
    expect(config.environments.production).toMatchObject({ name: 'production', default: true, directory: 'production', scm: { type: 'gitlab' } });
    expect(config.environments.staging).toMatchObject({ name: 'stage', default: false });
    expect(config.environments.qa).toMatchObject({ name: 'qa', storage: 'other', directory: '' });
  });

  it('hides credentials and webhook secrets from /meta/config and config validate', () => {
    const { config } = load(FULL);
    const shown = JSON.stringify(publicConfig(config));
    const redacted = JSON.stringify(redactedConfig(config));
    for (const secret of ['tok-123', '"pw"', 's3cret']) {
      expect(shown).not.toContain(secret);
      expect(redacted).not.toContain(secret);
    }
    expect(shown).toContain('git.example.com');
    expect(redacted).toContain('ada');
  });

  it('sets named entries from PENNON_* variables', () => {
    const { config } = loadConfig({
      env: {
        PENNON_STORAGE_FLAGS_REMOTE: 'https://h/r.git',
        PENNON_STORAGE_FLAGS_POLL_INTERVAL: '2s',
        PENNON_STORAGE_READ_ONLY: 'true',
        PENNON_ENVIRONMENTS_PROD_STORAGE: 'flags',
      },
      isTTY: false,
    });
    expect(gitStoragesOf(config.storage).get('flags')).toMatchObject({ remote: 'https://h/r.git', poll_interval: 2000 });
    expect(config.storage.read_only).toBe(true);
    expect(config.environments.prod).toMatchObject({ name: 'prod', storage: 'flags', default: true });
  });

  it('refuses unknown keys, bad remotes and short poll intervals, naming the key', () => {
    const problems = problemsOf(`
storage:
  flags: { remote: ssh://git@h/r.git, branchh: main, poll_interval: 500ms }
  typo: true
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        'storage.flags.branchh: unknown key',
        'storage.flags.remote: must be an http:// or https:// URL',
        'storage.typo: expected a Git storage (remote, branch, …) or one of type, read_only',
      ]),
    );
    expect(problemsOf('storage: { default: { remote: "https://h/r.git", poll_interval: 500ms } }')).toEqual(['storage.default.poll_interval: must be at least 1s']);
  });

  it('checks references between environments, storages and credentials', () => {
    const problems = problemsOf(`
credentials:
  empty: { type: access_token }
storage:
  flags: { remote: "https://h/r.git", credentials: nope }
environments:
  a: { storage: missing, default: true }
  b: { storage: flags, directory: x/ }
  c: { storage: flags, directory: ./x, scm: { webhook: { secret: "" } } }
`);
    expect(problems).toEqual([
      'credentials.empty.access_token: must not be empty for type access_token (and no basic)',
      'storage.flags.credentials: credential "nope" not found under credentials',
      'environments.a.storage: references undefined storage "missing"',
      'environments.c: environments b and c share the same storage "flags" and directory "./x"',
      'environments.c.scm.webhook.secret: must not be empty',
    ]);
  });

  it("gives storage.default Flipt's default environment when none is configured", () => {
    expect(load('storage: { default: { remote: "https://h/r.git" } }').config.environments).toEqual({
      default: { name: 'default', default: true, storage: 'default', directory: '' },
    });
    expect(problemsOf('storage: { flags: { remote: "https://h/r.git" } }')).toEqual([
      "environments: none configured, and no storage.default for Flipt's default environment to use (storages: flags)",
    ]);
  });

  it('needs exactly one default environment when there are several', () => {
    const base = 'storage: { flags: { remote: "https://h/r.git" } }\n';
    expect(problemsOf(`${base}environments: { a: { storage: flags, directory: a }, b: { storage: flags, directory: b } }`)).toEqual([
      'environments: one environment must have default: true',
    ]);
    expect(problemsOf(`${base}environments: { a: { storage: flags, directory: a, default: true }, b: { storage: flags, directory: b, default: true } }`)).toEqual([
      'environments: only one environment may have default: true (a, b do)',
    ]);
  });

  it('resolves ${env:NAME} and ${secret:file:KEY} once at load, naming the key when it cannot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pennon-secrets-'));
    writeFileSync(join(dir, 'gh-token'), '  tok-from-file\n');
    const base = `secrets: { providers: { file: { base_path: ${dir} } } }
storage: { flags: { remote: "https://h/r.git", credentials: gh } }
`;
    const { config } = load(
      `${base}credentials: { gh: { access_token: "\${secret:file:gh-token}" } }
environments: { prod: { storage: flags, scm: { type: github, webhook: { secret: "\${env:HOOK_SECRET}" } } } }
`,
      { HOOK_SECRET: 'from-env' },
    );
    expect(config.credentials.gh.access_token).toBe('tok-from-file');
    expect(config.environments.prod.scm?.webhook?.secret).toBe('from-env');

    expect(problemsOf(`${base}credentials: { gh: { access_token: x } }\nenvironments: { prod: { storage: flags, scm: { webhook: { secret: "\${env:UNSET}" } } } }\n`)).toEqual([
      'environments.prod.scm.webhook.secret: must not be empty',
    ]);
    expect(problemsOf(`${base}credentials: { gh: { access_token: "\${secret:file:missing}" } }\n`)).toEqual([
      `credentials.gh.access_token: cannot read secret ${join(dir, 'missing')}: ENOENT`,
    ]);
    expect(problemsOf(`${base}credentials: { gh: { access_token: "\${secret:vault:auth/oidc:id}" } }\n`)[0]).toMatch(/^credentials\.gh\.access_token: secret reference "vault:auth\/oidc:id": expected 'provider:key'/);
    expect(problemsOf(`${base}credentials: { gh: { access_token: "\${secret:vault:id}" } }\n`)[0]).toBe('credentials.gh.access_token: secret provider "vault" is not supported (only file)');
  });
});

