import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { pennon, tempDir } from '../support/cli';
import { startGitRemote, type GitRemote } from '../support/git-remote';
import { expectStatus, startServer, type TestServer } from '../support/server';

/**
 * `pennon flag export --address` picks its way (issue 16, item 4): a Pennon server's bulk export
 * route (one streamed request), or — from a server without it (Flipt, or Pennon with flags in
 * Git) — the API's lists. Either way the output is written as it arrives, and a file is put in
 * place only whole: a failed export leaves what was there.
 */

const DOCUMENT = 'version: "1.4"\nnamespace: fuzz\nflags:\n- key: zeta\n  name: Zeta\n  enabled: true\n- key: alpha\n  name: Alpha\nsegments:\n- key: s\n  name: S\n';

describe('pennon flag export --address', () => {
  let dir: string;
  let remote: GitRemote;
  let gitBacked: TestServer;
  let database: TestServer;
  beforeAll(async () => {
    dir = tempDir('pennon-export-');
    remote = await startGitRemote();
    remote.commit({ 'prod/fuzz/features.yaml': DOCUMENT });
    gitBacked = await startServer({
      PENNON_STORAGE_FLAGS_REMOTE: remote.url,
      PENNON_STORAGE_FLAGS_POLL_INTERVAL: '1h',
      PENNON_ENVIRONMENTS_PROD_STORAGE: 'flags',
      PENNON_ENVIRONMENTS_PROD_DIRECTORY: 'prod',
    });
    database = await startServer();
    expectStatus(await database.api.request('POST', '/api/v1/import', DOCUMENT, { 'content-type': 'application/yaml' }), 200);
  }, 60_000);
  afterAll(async () => {
    await gitBacked?.stop();
    await database?.stop();
    await remote?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the lists of a server without the bulk export route (flags in Git): the same document as the route gives', async () => {
    expect((await gitBacked.api.get('/api/v1/namespaces/fuzz/export')).status).toBe(404);
    const fromLists = await pennon(['flag', 'export', '-n', 'fuzz', '--address', gitBacked.url]);
    expect(fromLists.exitCode, fromLists.stderr).toBe(0);
    const fromRoute = await pennon(['flag', 'export', '-n', 'fuzz', '--address', database.url]);
    expect(fromRoute.exitCode, fromRoute.stderr).toBe(0);
    expect(parse(fromLists.stdout)).toMatchObject({ version: '1.4', namespace: { key: 'fuzz' }, flags: [{ key: 'zeta' }, { key: 'alpha' }], segments: [{ key: 's' }] });
    expect(fromLists.stdout).toBe(fromRoute.stdout);
    const sorted = await pennon(['flag', 'export', '-n', 'fuzz', '--sort-by-key', '--address', gitBacked.url]);
    expect((parse(sorted.stdout) as { flags: { key: string }[] }).flags.map((f) => f.key)).toEqual(['alpha', 'zeta']);
  });

  it('leaves the file that was there when the export fails, and no partial file beside it', async () => {
    const file = join(dir, 'kept.yml');
    writeFileSync(file, 'what was there\n');
    for (const address of [database.url, gitBacked.url]) {
      const failed = await pennon(['flag', 'export', '-n', 'fuzz,nowhere', '--address', address, '-o', file]);
      expect([failed.exitCode, failed.stderr]).toEqual([1, expect.stringContaining('namespace "nowhere" not found')]);
      expect(readFileSync(file, 'utf8')).toBe('what was there\n');
      expect(readdirSync(dir)).toEqual(['kept.yml']);
    }
    const written = await pennon(['flag', 'export', '-n', 'fuzz', '--address', database.url, '-o', file]);
    expect([written.exitCode, written.stderr]).toEqual([0, `exported to ${file}`]);
    expect(readFileSync(file, 'utf8')).toMatch(/^# exported by Pennon \([^)]+\) on [^\n]+\n\nversion: "1.4"\nnamespace:\n {2}key: fuzz\n/);
    expect(readdirSync(dir)).toEqual(['kept.yml']);
  });
});
