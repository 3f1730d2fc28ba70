import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../internal/config';
import type { AuditQuery } from '../../../internal/core';
import { GitEnvironments } from '../../../internal/git';
import { productionAndStaging } from '../../support/git-fixtures';
import { startGitRemote, type GitRemote } from '../../support/git-remote';
import { expectStatus, useServer } from '../../support/server';

/**
 * A Git environment's audit trail over histories the basic suite (audit-trail.test.ts) does not
 * make: branches merged back, and a long history, which the server — holding only the branch's
 * tip after its fetch — reads deeper a few fetches at a time. Real repositories made with the
 * git CLI, served by git http-backend on loopback.
 */

/** A flag file of boolean flags (key → enabled). */
const features = (namespace: string, flags: Record<string, boolean>) =>
  `version: "1.6"\nnamespace: ${namespace}\nflags:\n${Object.entries(flags)
    .map(([key, enabled]) => `  - key: ${key}\n    name: ${key}\n    type: BOOLEAN_FLAG_TYPE\n    enabled: ${enabled}\n`)
    .join('')}`;

const line = (e: any) => `${e.payload.message} | ${e.namespace} ${e.action} | ${e.payload.changed.map((c: any) => `${c.type}:${c.key}:${c.action}`).join(' ')}`;

/** Runs git in `cwd` as `who`, at `date` (author and committer alike). */
function gitAt(cwd: string, who: string, date: string, ...args: string[]): string {
  const env = { ...process.env, GIT_AUTHOR_NAME: who, GIT_AUTHOR_EMAIL: `${who}@example.com`, GIT_COMMITTER_NAME: who, GIT_COMMITTER_EMAIL: `${who}@example.com`, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date, GIT_CONFIG_NOSYSTEM: '1', HOME: cwd };
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
}

describe('merged branches in the trail', () => {
  let remote: GitRemote;
  let work: string;
  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit({ 'prod/shop/features.yaml': features('shop', { colour: false, checkout: false }), 'prod/docs/features.yaml': features('docs', { banner: true }) }, 'Start', {
      name: 'alice',
      email: 'alice@example.com',
      date: '2026-03-02T09:00:00Z',
    });
    work = mkdtempSync(join(tmpdir(), 'pennon-git-merges-'));
    const at = (who: string, time: string, ...args: string[]) => gitAt(work, who, `2026-03-02T${time}Z`, ...args);
    const write = (path: string, text: string) => writeFileSync(join(work, path), text);
    at('alice', '09:00:00', 'clone', '-q', remote.bare, '.');
    // A branch changing the shop while the main line changes the docs; merged with a merge commit.
    at('bob', '09:10:00', 'checkout', '-q', '-b', 'checkout-on');
    write('prod/shop/features.yaml', features('shop', { colour: false, checkout: true }));
    at('bob', '09:10:00', 'commit', '-q', '-am', 'Checkout on');
    at('alice', '09:20:00', 'checkout', '-q', 'main');
    write('prod/docs/features.yaml', features('docs', { banner: false }));
    at('alice', '09:20:00', 'commit', '-q', '-am', 'Banner off');
    at('alice', '09:30:00', 'merge', '-q', '--no-ff', '-m', 'Merge checkout-on', 'checkout-on');
    // A branch merged where the main line changed nothing: the merge's files are the branch's.
    at('bob', '09:40:00', 'checkout', '-q', '-b', 'colour-on');
    write('prod/shop/features.yaml', features('shop', { colour: true, checkout: true }));
    at('bob', '09:40:00', 'commit', '-q', '-am', 'Colour on');
    at('alice', '09:50:00', 'checkout', '-q', 'main');
    at('alice', '09:50:00', 'merge', '-q', '--no-ff', '-m', 'Merge colour-on', 'colour-on');
    at('alice', '09:50:00', 'push', '-q', 'origin', 'main');
  });
  afterAll(async () => {
    await remote?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  const server = useServer(() => productionAndStaging(remote.url));

  it("lists every branch's commits by date, a merge with what it brought into the main line, and no merge that only took a branch's files", async () => {
    const { events } = expectStatus(await server.api.get('/api/v1/audit/events'), 200);
    expect(events.map(line)).toEqual([
      'Colour on | shop updated | flag:colour:updated',
      'Merge checkout-on | shop updated | flag:checkout:updated',
      'Banner off | docs updated | flag:banner:updated',
      'Checkout on | shop updated | flag:checkout:updated',
      'Start | docs created | flag:banner:created',
      'Start | shop created | flag:checkout:created flag:colour:created',
    ]);
    expect(events.map((e: any) => e.metadata.actor.name)).toEqual(['bob', 'alice', 'alice', 'bob', 'alice', 'alice']);
    const mergeSha = gitAt(work, 'alice', 'now', 'rev-parse', 'main^1');
    expect(events[1].objectId).toBe(mergeSha);
  });
});

/** Commits made with `git fast-import` (hundreds in well under a second): commit i leaves flag `n<i>` alone in the shop. */
function importHistory(bare: string, count: number): void {
  const start = Date.parse('2026-03-01T00:00:00Z') / 1000;
  const chunks: string[] = [];
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  for (let i = 0; i < count; i++) {
    const who = i % 2 === 0 ? 'alice' : 'bob';
    const when = `${start + i * 60} +0000`;
    chunks.push(`commit refs/heads/main\nmark :${i + 1}\nauthor ${who} <${who}@example.com> ${when}\ncommitter ${who} <${who}@example.com> ${when}\n`);
    chunks.push(data(`Step ${i}`));
    if (i > 0) chunks.push(`from :${i}\n`);
    chunks.push(`M 100644 inline prod/shop/features.yaml\n${data(features('shop', { [`n${i}`]: true }))}`);
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: bare, input: chunks.join(''), env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: bare } });
}

describe('a long history', () => {
  const COUNT = 450;
  let remote: GitRemote;
  beforeAll(async () => {
    remote = await startGitRemote();
    importHistory(remote.bare, COUNT);
  });
  afterAll(async () => {
    await remote?.close();
  });
  const server = useServer(() => productionAndStaging(remote.url));
  // Changed objects come in key order (byte order: `n100` before `n99`).
  const expected = (i: number) =>
    i === 0
      ? 'Step 0 | shop created | flag:n0:created'
      : `Step ${i} | shop updated | ${[`flag:n${i - 1}:deleted`, `flag:n${i}:created`].sort((a, b) => (a.split(':')[1] < b.split(':')[1] ? -1 : 1)).join(' ')}`;

  it('pages through every commit, newest first, fetching the older ones a few times at most', async () => {
    const fetches = remote.uploadPacks;
    const seen: string[] = [];
    const ids: string[] = [];
    let token = '';
    do {
      const t0 = Date.now();
      const page = expectStatus(await server.api.get(`/api/v1/namespaces/shop/audit/events?limit=100${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`), 200);
      seen.push(...page.events.map(line));
      ids.push(...page.events.map((e: any) => e.id));
      console.log("PAGE", Date.now() - t0, remote.uploadPacks);
      token = page.nextPageToken;
    } while (token !== '' && seen.length <= COUNT);
    expect(seen).toEqual(Array.from({ length: COUNT }, (_, k) => expected(COUNT - 1 - k)));
    expect([...ids].sort().reverse()).toEqual(ids);
    // Twice as deep as walked each time: two fetches (of one or two requests each) reach 450 commits.
    expect(remote.uploadPacks - fetches).toBeGreaterThan(0);
    expect(remote.uploadPacks - fetches).toBeLessThanOrEqual(4);
  });

  it('finds a key deep in the history, and answers the same ids at every request', async () => {
    const { events } = expectStatus(await server.api.get('/api/v1/audit/events?key=n17'), 200);
    expect(events.map(line)).toEqual([expected(18), expected(17)]);
    expect(events.map((e: any) => e.metadata.actor.name)).toEqual(['alice', 'bob']);
    expect(events[1].timestamp).toBe('2026-03-01T00:17:00Z');
    const again = expectStatus(await server.api.get('/api/v1/audit/events?since=2026-03-01T00:17:00Z&until=2026-03-01T00:19:00Z'), 200);
    expect(again.events.map((e: any) => e.id)).toEqual(events.map((e: any) => e.id));
  });
});

describe('a local repository without a remote (Git objects in-process)', () => {
  let remote: GitRemote;
  let dir: string;
  const opened: GitEnvironments[] = [];
  const everything: AuditQuery = { namespace: null, limit: 100 };
  beforeAll(async () => {
    remote = await startGitRemote();
    dir = mkdtempSync(join(tmpdir(), 'pennon-git-local-trail-'));
    for (const [i, who] of ['alice', 'bob', 'alice'].entries()) {
      remote.commit({ 'prod/shop/features.yaml': features('shop', { colour: i % 2 === 1 }) }, `Colour ${i}`, { name: who, email: `${who}@example.com`, date: `2026-03-03T0${i}:00:00Z` });
    }
  });
  afterAll(async () => {
    await Promise.all(opened.map((e) => e.stop()));
    await remote?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const open = async (path: string) => {
    const env = { PENNON_STORAGE_FLAGS_REMOTE: '', PENNON_STORAGE_FLAGS_BACKEND_TYPE: 'local', PENNON_STORAGE_FLAGS_BACKEND_PATH: path, PENNON_ENVIRONMENTS_PROD_STORAGE: 'flags', PENNON_ENVIRONMENTS_PROD_DIRECTORY: 'prod' };
    const environments = new GitEnvironments({ config: loadConfig({ env, isTTY: false }).config, logger: pino({ level: 'silent' }) });
    opened.push(environments);
    await environments.start();
    return environments.get()!;
  };

  it('reads the whole history the repository holds', async () => {
    const events = await (await open(remote.bare)).audit(everything);
    expect(events.map(line)).toEqual(['Colour 2 | shop updated | flag:colour:updated', 'Colour 1 | shop updated | flag:colour:updated', 'Colour 0 | shop created | flag:colour:created']);
    expect(events.map((e) => e.actor.name)).toEqual(['alice', 'bob', 'alice']);
  });

  it("ends at a shallow clone's edge, whose commit's changes cannot be told without its parent", async () => {
    const clone = join(dir, 'shallow');
    execFileSync('git', ['clone', '-q', '--depth', '2', `file://${remote.bare}`, clone]);
    const prod = await open(clone);
    expect((await prod.audit(everything)).map(line)).toEqual(['Colour 2 | shop updated | flag:colour:updated']);
    expect((await prod.audit({ ...everything, actor: 'bob' })).map(line)).toEqual([]);
  });
});

describe('older commits out of reach', () => {
  let remote: GitRemote;
  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit({ 'prod/shop/features.yaml': features('shop', { colour: false }) }, 'Colour off');
    remote.commit({ 'prod/shop/features.yaml': features('shop', { colour: true }) }, 'Colour on');
  });
  const server = useServer(() => productionAndStaging(remote.url));

  it('answers 503 when the remote cannot be reached for them, rather than a trail that seems to end', async () => {
    expect(expectStatus(await server.api.get('/api/v1/namespaces/shop/flags/colour'), 200).enabled).toBe(true);
    // The server holds only the tip; its parent, needed to tell what the tip changed, is on the remote.
    await remote.close();
    const answer = await server.api.get('/api/v1/audit/events');
    expect(answer.status).toBe(503);
    expect(answer.body.message).toMatch(/^reading the branch's older commits: .*ECONNREFUSED/);
  });
});
