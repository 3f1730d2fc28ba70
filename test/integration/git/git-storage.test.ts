import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gitStoragesOf, loadConfig, type Config } from '../../../internal/config';
import { evaluateBoolean, evaluateVariant } from '../../../internal/evaluation';
import { asText, GitEnvironments, type GitEnvironment, type GitObjects, type ObjectsOptions } from '../../../internal/git';
import { threadedGitObjects } from '../../../internal/service/git-thread';
import { startGitRemote, type GitRemote } from '../../support/git-remote';
import { until } from '../../support/wait';

/** Git storage against a real Git remote on loopback (git http-backend), no mocks of Git. */

const flags = (variant: string, enabled = true, version = '1.6') => `version: "${version}"
namespace: production
flags:
  - key: colour
    name: Colour
    enabled: ${enabled}
    variants:
      - key: ${variant}
        name: ${variant}
    rules:
      - segment: everyone
        distributions:
          - variant: ${variant}
            rollout: 100
  - key: beta
    name: Beta
    type: BOOLEAN_FLAG_TYPE
    enabled: false
    rollouts:
      - segment: { key: everyone, value: true }
segments:
  - key: everyone
    name: Everyone
    match_type: ALL_MATCH_TYPE
    constraints:
      - type: STRING_COMPARISON_TYPE
        property: plan
        operator: isoneof
        value: [free, pro]
`;

const remotes: GitRemote[] = [];
const opened: GitEnvironments[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((e) => e.stop()));
  await Promise.all(remotes.splice(0).map((r) => r.close()));
});

interface Logs {
  logger: pino.Logger;
  lines: Record<string, unknown>[];
}

function logs(): Logs {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

function configFor(env: NodeJS.ProcessEnv): Config {
  return loadConfig({ env, isTTY: false }).config;
}

async function remote(options?: Parameters<typeof startGitRemote>[0]): Promise<GitRemote> {
  const r = await startGitRemote(options);
  remotes.push(r);
  return r;
}

/** Where the Git work runs in this pass: in the test's thread, or on a thread of its own as in `serve`. */
let objects: ((options: ObjectsOptions) => GitObjects) | undefined;

async function open(config: Config, log = logs()): Promise<{ envs: GitEnvironments; prod: GitEnvironment; log: Logs }> {
  const envs = new GitEnvironments({ config, logger: log.logger, objects });
  opened.push(envs);
  await envs.start();
  return { envs, prod: envs.get()!, log };
}

const colourOf = (env: GitEnvironment) => {
  const flag = env.compiled('production')?.flags.get('colour');
  return flag ? evaluateVariant(flag, 'user-1', { plan: 'pro' }).variantKey : undefined;
};

const basicEnv = (url: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PENNON_STORAGE_FLAGS_REMOTE: url,
  PENNON_STORAGE_FLAGS_POLL_INTERVAL: '1h',
  PENNON_ENVIRONMENTS_PROD_STORAGE: 'flags',
  PENNON_ENVIRONMENTS_PROD_DIRECTORY: 'prod',
  ...extra,
});

describe.each([
  ['in-process', undefined],
  ['on a thread', threadedGitObjects],
])('Git storage over a loopback remote (Git objects %s)', (_, where) => {
  beforeAll(() => {
    objects = where;
  });

  it('clones, reads the flag files and evaluates through the compiled snapshot', async () => {
    const r = await remote();
    const commit = r.commit({ 'prod/production/features.yaml': flags('blue'), 'prod/root.yaml': 'not: read', 'features.yaml': 'ignored at the root' });
    const { prod } = await open(configFor(basicEnv(r.url)));
    expect(prod.snapshot.commit).toBe(commit);
    expect([...prod.snapshot.namespaces.keys()].sort()).toEqual(['default', 'production']);
    expect(colourOf(prod)).toBe('blue');
    const moved = await open(configFor(basicEnv(r.url.replace('flags.git', 'moved.git'))));
    expect(moved.prod.snapshot.commit).toBe(commit); // redirects are followed
    const beta = prod.compiled('production')!.flags.get('beta')!;
    expect(evaluateBoolean(beta, 'u', { plan: 'free' }).enabled).toBe(true);
    expect(evaluateBoolean(beta, 'u', { plan: 'none' }).enabled).toBe(false);
    expect(await prod.loadNamespace('production')).toMatchObject({ key: 'production', revision: commit });
    expect(prod.namespace('production')!.namespace).toMatchObject({ key: 'production', name: 'production' });
  });

  it('picks up a pushed commit after requestSync, and by polling', async () => {
    const r = await remote();
    r.commit({ 'prod/production/features.yml': flags('blue') });
    const { prod, envs } = await open(configFor(basicEnv(r.url)));
    const before = prod.snapshot;
    const changes: string[] = [];
    prod.onChange((snapshot) => changes.push(snapshot.commit));
    const second = r.commit({ 'prod/production/features.yml': flags('green') });
    expect(colourOf(prod)).toBe('blue'); // nothing moves before a fetch
    await prod.requestSync();
    expect(prod.snapshot.commit).toBe(second);
    expect(colourOf(prod)).toBe('green');
    expect(changes).toEqual([second]);
    await prod.requestSync(); // nothing new: no rebuild, no change
    expect(changes).toEqual([second]);
    expect(before.namespaces.get('production')!.compiled.flags.get('colour')).toBeDefined(); // the old snapshot was left intact

    // Polling at the minimum interval (1s).
    const polled = await open(configFor(basicEnv(r.url, { PENNON_STORAGE_FLAGS_POLL_INTERVAL: '1s' })));
    const third = r.commit({ 'prod/production/features.yml': flags('red') });
    await expect.poll(() => polled.prod.snapshot.commit, { timeout: 5000, interval: 100 }).toBe(third);
    expect(colourOf(polled.prod)).toBe('red');
    expect(envs.repositories.get('flags')!.stats.fetchErrors).toBe(0);
  });

  it('keeps the last good snapshot when a commit is invalid, logging file and line and counting it', async () => {
    const r = await remote();
    const good = r.commit({ 'prod/production/features.yaml': flags('blue') });
    const errors: string[] = [];
    const log = logs();
    const envs = new GitEnvironments({ config: configFor(basicEnv(r.url)), logger: log.logger, onBuildError: (env) => errors.push(env) });
    opened.push(envs);
    await envs.start();
    const prod = envs.get()!;
    r.commit({ 'prod/production/features.yaml': flags('blue').replace('name: Colour', 'name: Colour\n    colour: oops') });
    await prod.requestSync();
    expect(prod.snapshot.commit).toBe(good);
    expect(colourOf(prod)).toBe('blue');
    expect(prod.stats.buildErrors).toBe(1);
    expect(errors).toEqual(['prod']);
    const error = log.lines.find((l) => l.level === 50)!;
    expect(error).toMatchObject({ environment: 'prod', file: 'production/features.yaml' });
    expect(String(error.msg)).toMatch(/keeping the snapshot of commit/);
    expect(String(error.msg)).toMatch(/production\/features\.yaml: .*colour.*line 6/);

    // A later good commit is served again.
    const fixed = r.commit({ 'prod/production/features.yaml': flags('green') });
    await prod.requestSync();
    expect(prod.snapshot.commit).toBe(fixed);
    expect(colourOf(prod)).toBe('green');
  });

  it('starts with an empty snapshot and a logged error when the repository is invalid at start', async () => {
    const r = await remote();
    r.commit({ 'prod/production/features.yaml': 'version: "9.9"\nflags: []\n' });
    const { prod, log } = await open(configFor(basicEnv(r.url)));
    expect(prod.snapshot.commit).toBe('');
    expect([...prod.snapshot.namespaces.keys()]).toEqual(['default']);
    expect(prod.compiled('default')!.flags.size).toBe(0);
    expect(log.lines.some((l) => l.level === 50 && /serving an empty environment.*unsupported version: 9\.9.*line 1/.test(String(l.msg)))).toBe(true);
  });

  it('survives an unreachable remote at start: empty, logged, counted', async () => {
    const r = await remote();
    const url = r.url;
    await r.close();
    remotes.splice(remotes.indexOf(r), 1);
    const fetchErrors: string[] = [];
    const log = logs();
    const envs = new GitEnvironments({ config: configFor(basicEnv(url)), logger: log.logger, onFetchError: (s) => fetchErrors.push(s) });
    opened.push(envs);
    await envs.start();
    expect(envs.get()!.snapshot.commit).toBe('');
    expect(fetchErrors).toEqual(['flags']);
    expect(log.lines.some((l) => l.level === 50 && l.msg === 'error performing fetch')).toBe(true);
  });

  it('sends basic credentials and access tokens, and fails without them', async () => {
    const basic = await remote({ authorization: `Basic ${Buffer.from('ada:pw').toString('base64')}` });
    basic.commit({ 'prod/production/features.yaml': flags('blue') });
    const withBasic = await open(
      configFor(basicEnv(basic.url, { PENNON_STORAGE_FLAGS_CREDENTIALS: 'me', PENNON_CREDENTIALS_ME_BASIC_USERNAME: 'ada', PENNON_CREDENTIALS_ME_BASIC_PASSWORD: 'pw' })),
    );
    expect(colourOf(withBasic.prod)).toBe('blue');

    const token = await remote({ authorization: `Basic ${Buffer.from('x-token-auth:t0ken').toString('base64')}` });
    token.commit({ 'prod/production/features.yaml': flags('green') });
    const withToken = await open(configFor(basicEnv(token.url, { PENNON_STORAGE_FLAGS_CREDENTIALS: 'tok', PENNON_CREDENTIALS_TOK_ACCESS_TOKEN: 't0ken' })));
    expect(colourOf(withToken.prod)).toBe('green');

    const wrong = await open(configFor(basicEnv(token.url, { PENNON_STORAGE_FLAGS_CREDENTIALS: 'tok', PENNON_CREDENTIALS_TOK_ACCESS_TOKEN: 'nope' })));
    expect(wrong.prod.snapshot.commit).toBe('');
    expect(wrong.envs.repositories.get('flags')!.stats.fetchErrors).toBe(1);
    expect(token.unauthorized).toBeGreaterThan(0);
    expect(JSON.stringify(wrong.log.lines)).not.toContain('nope');
    expect(JSON.stringify(wrong.log.lines)).not.toContain(Buffer.from('x-token-auth:nope').toString('base64'));
  });

  it('coalesces 20 concurrent requestSync calls into at most two fetches, ending at the last commit', async () => {
    const r = await remote();
    r.commit({ 'prod/production/features.yaml': flags('blue') });
    const { prod, envs } = await open(configFor(basicEnv(r.url)));
    const repository = envs.repositories.get('flags')!;
    const runsBefore = repository.fetchRuns;
    const last = r.commit({ 'prod/production/features.yaml': flags('green') });
    await Promise.all(Array.from({ length: 20 }, () => prod.requestSync()));
    expect(repository.fetchRuns - runsBefore).toBeLessThanOrEqual(2);
    expect(prod.snapshot.commit).toBe(last);
    expect(colourOf(prod)).toBe('green');
  });

  it('serves several environments of one storage from their directories with one repository', async () => {
    const r = await remote();
    r.commit({ 'prod/production/features.yaml': flags('blue'), 'staging/production/features.json': JSON.stringify({ namespace: 'production', flags: [{ key: 'colour', name: 'C', enabled: true }] }) });
    const { envs } = await open(
      configFor(basicEnv(r.url, { PENNON_ENVIRONMENTS_PROD_DEFAULT: 'true', PENNON_ENVIRONMENTS_STAGING_STORAGE: 'flags', PENNON_ENVIRONMENTS_STAGING_DIRECTORY: 'staging' })),
    );
    expect(envs.repositories.size).toBe(1);
    expect(colourOf(envs.get('prod')!)).toBe('blue');
    expect(envs.get('staging')!.compiled('production')!.flags.get('colour')!.name).toBe('C');
  });

  it('local backend: keeps the repository on disk, serves it when the remote is down at the next start, reads a branch without a remote', async () => {
    const r = await remote();
    const commit = r.commit({ 'prod/production/features.yaml': flags('blue') });
    const dir = mkdtempSync(join(tmpdir(), 'pennon-git-local-'));
    try {
      const local = (url: string) => basicEnv(url, { PENNON_STORAGE_FLAGS_BACKEND_TYPE: 'local', PENNON_STORAGE_FLAGS_BACKEND_PATH: dir });
      const first = await open(configFor(local(r.url)));
      expect(first.prod.snapshot.commit).toBe(commit);
      await first.envs.stop();

      const down = await open(configFor(local('http://127.0.0.1:1/flags.git')));
      expect(down.prod.snapshot.commit).toBe(commit);
      expect(colourOf(down.prod)).toBe('blue');
      expect(down.envs.repositories.get('flags')!.stats.fetchErrors).toBe(1);

      const noRemote = await open(
        configFor({ ...local(''), PENNON_STORAGE_FLAGS_REMOTE: '', PENNON_STORAGE_FLAGS_BACKEND_PATH: r.bare }),
      );
      expect(noRemote.prod.snapshot.commit).toBe(commit);

      // Someone's clone with a work tree: its .git is fetched into, never made shallow.
      const clone = join(dir, 'clone');
      execFileSync('git', ['clone', '-q', r.bare, clone]); // from the directory: a sync clone over HTTP would block this process's server
      const next = r.commit({ 'prod/production/features.yaml': flags('green') });
      const inClone = await open(configFor({ ...local(r.url), PENNON_STORAGE_FLAGS_BACKEND_PATH: clone }));
      expect(inClone.prod.snapshot.commit).toBe(next);
      expect(existsSync(join(clone, '.git', 'shallow'))).toBe(false);
      expect(execFileSync('git', ['-C', clone, 'rev-parse', 'origin/main'], { encoding: 'utf8' }).trim()).toBe(next);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('https: trusts ca_cert_bytes, refuses an unknown certificate, and skips the check when told to', async () => {
    const r = await remote({ tls: true });
    const commit = r.commit({ 'prod/production/features.yaml': flags('blue') });
    const trusted = await open(configFor(basicEnv(r.url, { PENNON_STORAGE_FLAGS_CA_CERT_BYTES: r.certificate })));
    expect(trusted.prod.snapshot.commit).toBe(commit);

    const unknown = await open(configFor(basicEnv(r.url)));
    expect(unknown.prod.snapshot.commit).toBe('');
    expect(JSON.stringify(unknown.log.lines.find((l) => l.msg === 'error performing fetch'))).toMatch(/self[- ]signed/i);

    const skipped = await open(configFor(basicEnv(r.url, { PENNON_STORAGE_FLAGS_INSECURE_SKIP_TLS: 'true' })));
    expect(skipped.prod.snapshot.commit).toBe(commit);
  });
});

describe('Git objects on a thread', () => {
  it('replaces a thread that died: calls in flight fail with why, the next call fetches afresh on a new thread', async () => {
    const r = await remote();
    const commit = r.commit({ 'prod/production/features.yaml': flags('blue') });
    const storage = gitStoragesOf(configFor(basicEnv(r.url)).storage).get('flags')!;
    const objects = threadedGitObjects({ storage });
    try {
      expect(await objects.fetch()).toBe(commit);
      // The thread dies (as one that ran out of memory would) while a call waits on it.
      const threadOf = () => (objects as unknown as { current: Worker | null }).current;
      const first = threadOf()!;
      const release = r.hold(); // the fetch stays in flight, in the thread, until it is gone
      const inFlight = objects.fetch();
      await until(async () => r.held > 0, 'the fetch reaches the remote');
      await first.terminate();
      await expect(inFlight).rejects.toThrow(/the Git thread stopped/);
      release();
      expect(await objects.fetch()).toBe(commit); // a new thread, a new (memory) repository
      expect(threadOf()).not.toBe(first);
      const files = asText(await objects.files(commit, 'prod'));
      expect(files.map((f) => f.path)).toEqual(['production/features.yaml']);
      expect(files[0].text).toBe(flags('blue'));
    } finally {
      await objects.close();
    }
  });
});
