import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productionAndStaging } from '../../support/git-fixtures';
import { startGitRemote, type CommitAuthor, type GitRemote } from '../../support/git-remote';
import { expectStatus, useServer, type ApiClient } from '../../support/server';

/**
 * A Git environment's audit trail is its branch's commits (issue 20): the same routes as the
 * database's trail, answered from a real Git remote on loopback by a server built as `serve`
 * builds it (the storage's Git work on its own thread). The server fetches only the branch's tip
 * at start, so the first look at the trail fetches the older commits.
 */

/** A flag file: boolean flags (key → enabled) and plain segments. */
function features(namespace: string, flags: Record<string, boolean>, segments: string[] = []): string {
  const flagLines = Object.entries(flags).map(([key, enabled]) => `  - key: ${key}\n    name: ${key}\n    type: BOOLEAN_FLAG_TYPE\n    enabled: ${enabled}\n`);
  const segmentLines = segments.map((key) => `  - key: ${key}\n    name: ${key}\n    match_type: ALL_MATCH_TYPE\n`);
  return `version: "1.6"\nnamespace: ${namespace}\nflags:\n${flagLines.join('')}${segments.length ? `segments:\n${segmentLines.join('')}` : ''}`;
}

const alice: CommitAuthor = { name: 'Alice Liddell', email: 'alice@example.com' };
const bob: CommitAuthor = { name: 'Bob Builder', email: 'bob@example.com' };
const at = (author: CommitAuthor, time: string): CommitAuthor => ({ ...author, date: `2026-03-02T${time}Z` });

/** An event as one line: which commit (by message), namespace, action and what it changed. */
const line = (e: any) => `${e.payload.message} | ${e.namespace} ${e.action} | ${e.payload.changed.map((c: any) => `${c.type}:${c.key}:${c.action}`).join(' ')}`;
const lines = (body: any) => body.events.map(line);

/** Production's whole trail, newest first (within a commit, namespaces in the order of their ids: docs before shop). */
const PRODUCTION = [
  'Turn colour on | shop updated | flag:colour:updated',
  'Retire the docs | docs deleted | flag:search:deleted',
  'Search replaces the banner | docs updated | flag:banner:deleted flag:search:created',
  'Search replaces the banner | shop updated | segment:members:created',
  'Turn checkout on | shop updated | flag:checkout:updated',
  'Add the shop and the docs | docs created | flag:banner:created',
  'Add the shop and the docs | shop created | flag:checkout:created flag:colour:created segment:everyone:created',
];

describe("a Git environment's audit trail: its branch's commits", () => {
  let remote: GitRemote;
  const sha: Record<string, string> = {};
  beforeAll(async () => {
    remote = await startGitRemote();
    sha.first = remote.commit(
      {
        'prod/shop/features.yaml': features('shop', { colour: false, checkout: false }, ['everyone']),
        'prod/docs/features.yaml': features('docs', { banner: true }),
        'staging/shop/features.yaml': features('shop', { colour: true }, ['everyone']),
      },
      'Add the shop and the docs',
      at(alice, '09:00:00'),
    );
    sha.checkout = remote.commit({ 'prod/shop/features.yaml': features('shop', { colour: false, checkout: true }, ['everyone']) }, 'Turn checkout on', at(bob, '09:30:00'));
    sha.staging = remote.commit({ 'staging/shop/features.yaml': features('shop', { colour: false }, ['everyone']) }, 'Staging: colour off', at(alice, '10:00:00'));
    sha.search = remote.commit(
      {
        'prod/docs/features.yaml': features('docs', { search: true }),
        'prod/shop/features.yaml': features('shop', { colour: false, checkout: true }, ['everyone', 'members']),
      },
      'Search replaces the banner',
      at(bob, '10:30:00'),
    );
    // Two commits in the same second, as a script makes them: the child still lists first.
    sha.retire = remote.commit({ 'prod/docs/features.yaml': null }, 'Retire the docs', at(alice, '11:00:00'));
    sha.colour = remote.commit({ 'prod/shop/features.yaml': features('shop', { colour: true, checkout: true }, ['everyone', 'members']) }, 'Turn colour on', at(bob, '11:00:00'));
  });
  afterAll(async () => {
    await remote?.close();
  });
  const server = useServer(() => productionAndStaging(remote.url));
  const api = server.api;
  const trail = async (path: string, client: ApiClient = api) => expectStatus(await client.get(path), 200);

  it('fetches the older commits at the first look, once', async () => {
    const fetches = remote.uploadPacks;
    expect(lines(await trail('/api/v1/audit/events'))).toEqual(PRODUCTION);
    const afterFirst = remote.uploadPacks;
    expect(afterFirst).toBeGreaterThan(fetches);
    expect(lines(await trail('/api/v1/audit/events?limit=3'))).toEqual(PRODUCTION.slice(0, 3));
    expect(remote.uploadPacks).toBe(afterFirst);
  });

  it('answers each commit with its author, message, files and changed objects, in the audit event shape', async () => {
    const { events, nextPageToken } = await trail('/api/v1/audit/events');
    expect(nextPageToken).toBe('');
    const [colour, retire] = events;
    expect(colour).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/),
      version: '0.2',
      type: 'commit',
      action: 'updated',
      status: 'success',
      metadata: { actor: { authentication: 'git', name: 'Bob Builder', email: 'bob@example.com' } },
      payload: {
        sha: sha.colour,
        message: 'Turn colour on',
        author: { name: 'Bob Builder', email: 'bob@example.com', timestamp: '2026-03-02T11:00:00.000Z' },
        committer: { name: 'Bob Builder', email: 'bob@example.com', timestamp: '2026-03-02T11:00:00.000Z' },
        changed: [{ type: 'flag', key: 'colour', action: 'updated' }],
        files: [{ path: 'prod/shop/features.yaml', action: 'updated' }],
      },
      before: null,
      timestamp: '2026-03-02T11:00:00Z',
      namespace: 'shop',
      key: '',
      objectId: sha.colour,
      requestId: null,
      source: 'git',
    });
    expect(retire).toMatchObject({ objectId: sha.retire, timestamp: '2026-03-02T11:00:00Z', metadata: { actor: { name: 'Alice Liddell' } }, payload: { files: [{ path: 'prod/docs/features.yaml', action: 'deleted' }] } });
    // Ids fall strictly along the list, as the route's paging needs, even for the two commits of
    // one second, whose SHAs sort the other way (so their place in the id, not the SHA, orders them).
    expect(sha.colour < sha.retire).toBe(true);
    const ids = events.map((e: any) => e.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // The staging-only commit is not in production's trail.
    expect(events.map((e: any) => e.objectId)).not.toContain(sha.staging);
    expect(events.map((e: any) => e.objectId)).toEqual([sha.colour, sha.retire, sha.search, sha.search, sha.checkout, sha.first, sha.first]);
  });

  it("the namespace's route answers only its namespace's commits", async () => {
    expect(lines(await trail('/api/v1/namespaces/shop/audit/events'))).toEqual(PRODUCTION.filter((l) => l.includes('| shop ')));
    expect(lines(await trail('/api/v1/namespaces/docs/audit/events'))).toEqual(PRODUCTION.filter((l) => l.includes('| docs ')));
    expect(lines(await trail('/api/v1/namespaces/default/audit/events'))).toEqual([]);
  });

  it('filters by a changed object’s key, by author name or email, by time, type and action', async () => {
    expect(lines(await trail('/api/v1/audit/events?key=checkout'))).toEqual([PRODUCTION[4], PRODUCTION[6]]);
    expect(lines(await trail('/api/v1/namespaces/docs/audit/events?key=search'))).toEqual([PRODUCTION[1], PRODUCTION[2]]);
    expect(lines(await trail('/api/v1/audit/events?actor=Bob%20Builder'))).toEqual([PRODUCTION[0], PRODUCTION[2], PRODUCTION[3], PRODUCTION[4]]);
    expect(lines(await trail('/api/v1/audit/events?actor=alice@example.com'))).toEqual([PRODUCTION[1], PRODUCTION[5], PRODUCTION[6]]);
    expect(lines(await trail('/api/v1/audit/events?actor=alice'))).toEqual([]);
    expect(lines(await trail('/api/v1/audit/events?since=2026-03-02T10:30:00Z'))).toEqual(PRODUCTION.slice(0, 4));
    expect(lines(await trail('/api/v1/audit/events?since=2026-03-02T09:15:00Z&until=2026-03-02T11:00:00Z'))).toEqual(PRODUCTION.slice(2, 5));
    expect(lines(await trail('/api/v1/audit/events?key=colour&actor=bob@example.com'))).toEqual([PRODUCTION[0]]);
    expect(lines(await trail('/api/v1/audit/events?type=segment'))).toEqual([PRODUCTION[3], PRODUCTION[6]]);
    expect(lines(await trail('/api/v1/audit/events?type=commit&action=deleted'))).toEqual([PRODUCTION[1], PRODUCTION[2]]);
    expect(lines(await trail('/api/v1/audit/events?type=flag&action=created&key=search'))).toEqual([PRODUCTION[2]]);
    expect(lines(await trail('/api/v1/audit/events?type=token'))).toEqual([]);
  });

  it('pages across commits, newest first, with the last event’s id as the page token', async () => {
    for (const limit of [1, 2, 3]) {
      const seen: string[] = [];
      let token = '';
      let pages = 0;
      do {
        const page = await trail(`/api/v1/audit/events?limit=${limit}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
        expect(page.events.length).toBeLessThanOrEqual(limit);
        seen.push(...lines(page));
        token = page.nextPageToken;
        pages++;
      } while (token !== '' && pages < 20);
      expect(seen).toEqual(PRODUCTION);
      expect(pages).toBe(Math.ceil(PRODUCTION.length / limit));
    }
    const shop = await trail('/api/v1/namespaces/shop/audit/events?limit=2&actor=bob@example.com');
    expect(lines(shop)).toEqual([PRODUCTION[0], PRODUCTION[3]]);
    const rest = await trail(`/api/v1/namespaces/shop/audit/events?limit=2&actor=bob@example.com&pageToken=${encodeURIComponent(shop.nextPageToken)}`);
    expect(lines(rest)).toEqual([PRODUCTION[4]]);
    expect(rest.nextPageToken).toBe('');
  });

  it('X-Flipt-Environment picks the environment whose directory is read', async () => {
    const staging = api.withHeaders({ 'X-Flipt-Environment': 'staging' });
    const body = await trail('/api/v1/audit/events', staging);
    expect(lines(body)).toEqual(['Staging: colour off | shop updated | flag:colour:updated', 'Add the shop and the docs | shop created | flag:colour:created segment:everyone:created']);
    expect(body.events.map((e: any) => e.payload.files[0].path)).toEqual(['staging/shop/features.yaml', 'staging/shop/features.yaml']);
    expect(body.events[0].metadata.actor).toEqual({ authentication: 'git', name: 'Alice Liddell', email: 'alice@example.com' });
    expect(lines(await trail('/api/v1/audit/events', api.withHeaders({ 'X-Flipt-Environment': 'production' })))).toEqual(PRODUCTION);
    const unknown = await api.withHeaders({ 'X-Flipt-Environment': 'nowhere' }).get('/api/v1/audit/events');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('environment "nowhere" not found');
  });

  it('a new commit leads the trail after a sync, its history read from what was fetched; a broken file still shows who pushed it', async () => {
    const newest = remote.commit({ 'prod/shop/features.yaml': features('shop', { colour: true }, ['everyone', 'members']) }, 'Drop checkout', at(alice, '12:00:00'));
    await server.service.environments!.repositories.get('flags')!.requestSync();
    const synced = remote.uploadPacks;
    expect(lines(await trail('/api/v1/audit/events?limit=2'))).toEqual(['Drop checkout | shop updated | flag:checkout:deleted', PRODUCTION[0]]);
    expect(remote.uploadPacks).toBe(synced);
    expect((await trail('/api/v1/audit/events?limit=1')).events[0].objectId).toBe(newest);

    const broken = remote.commit({ 'prod/shop/features.yaml': 'version: "1.6"\nnamespace: shop\nflags: [\n' }, 'Oops', at(bob, '12:30:00'));
    await server.service.environments!.repositories.get('flags')!.requestSync();
    // The environment keeps serving the last good commit…
    expect(expectStatus(await api.get('/api/v1/namespaces/shop/flags/colour'), 200).enabled).toBe(true);
    // …and the trail names the commit that broke it, under the namespace its previous version declared.
    const [oops] = (await trail('/api/v1/namespaces/shop/audit/events?limit=1')).events;
    expect(oops).toMatchObject({ objectId: broken, action: 'updated', metadata: { actor: { name: 'Bob Builder' } }, payload: { message: 'Oops', changed: [] } });
    expect(oops.payload.files).toEqual([{ path: 'prod/shop/features.yaml', action: 'updated', error: expect.stringMatching(/\S/) }]);
  });
});
