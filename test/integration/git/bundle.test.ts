import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, expect, it } from 'vitest';

/**
 * The single executable has no node_modules: isomorphic-git, memfs and our HTTP plugin must
 * bundle with esbuild (the options esbuild.config.mjs uses) and run from a directory where
 * nothing can be required from disk. This bundles the Git storage with the loopback remote and
 * runs a clone in a child process there.
 */

const dir = mkdtempSync(join(tmpdir(), 'pennon-git-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('bundles and clones without node_modules', async () => {
  const root = resolve(__dirname, '../../..');
  const contents = `import pino from 'pino';
import { loadConfig } from '../../../internal/config';
import { GitEnvironments } from '../../../internal/git';
import { startGitRemote } from '../../support/git-remote';
(async () => {
  const r = await startGitRemote();
  const commit = r.commit({ 'production/features.yaml': 'namespace: production\\nflags:\\n  - {key: a, name: A, enabled: true}\\n' });
  const { config } = loadConfig({ env: { PENNON_STORAGE_FLAGS_REMOTE: r.url, PENNON_ENVIRONMENTS_PROD_STORAGE: 'flags' }, isTTY: false });
  const envs = new GitEnvironments({ config, logger: pino({ level: 'silent' }) });
  await envs.start();
  const env = envs.get()!;
  process.stdout.write(JSON.stringify({ ok: env.snapshot.commit === commit, flags: [...env.compiled('production')!.flags.keys()] }));
  await envs.stop();
  await r.close();
})();
`;
  await build({
    stdin: { contents, resolveDir: join(root, 'test/integration/git'), loader: 'ts', sourcefile: 'bundle-entry.ts' },
    outfile: join(dir, 'git.cjs'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    supported: { 'dynamic-import': false },
    logLevel: 'silent',
  });
  const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'git.cjs')], { cwd: dir, env: { PATH: process.env.PATH ?? '' }, timeout: 30_000 });
  expect(JSON.parse(stdout)).toEqual({ ok: true, flags: ['a'] });
}, 60_000);
