import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenAuth } from '../../support/dashboard';
import { everyoneGets, productionAndStaging } from '../../support/git-fixtures';
import { startGitRemote, type GitRemote } from '../../support/git-remote';
import { openEvents, type EventStreamClient } from '../../support/namespace-events';
import { rawRequest } from '../../support/raw-http';
import { newNamespace, unique } from '../../support/resources';
import { expectStatus, startServer, useServer, type TestServer } from '../../support/server';
import { until } from '../../support/wait';

/**
 * Pennon's namespace event stream, `GET /api/v1/namespaces/{ns}/events` (the dashboard's live
 * updates): `ready`, then one `change` per write with the flags it touched; a segment's change
 * moves the revision; the management surface's authentication; streams.max; streams that come
 * and go leave nothing held; Git environments by header or `?environment=`.
 */

describe('the namespace event stream', () => {
  const server = useServer({ PENNON_STREAMS_HEARTBEAT_INTERVAL: '200ms' });
  const api = server.api;
  const open: EventStreamClient[] = [];
  afterAll(() => open.forEach((s) => s.close()));
  const follow = async (ns: string) => {
    const events = await openEvents(server.url, ns);
    open.push(events);
    return events;
  };

  it('answers text/event-stream, `ready` first with the revision held and the heartbeat period', async () => {
    const { ns } = await newNamespace(api, 'ev');
    const events = await follow(ns);
    expect(events.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(events.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(events.ready).toEqual({ namespace: ns, revision: expect.any(String), heartbeatMs: 200 });
    expect(events.ready.revision).not.toBe('');
    // Heartbeats are SSE comments: `: ping`.
    await until(() => events.raw.includes('\n\n: ping\n\n'), 'a heartbeat arrives', 5000);
  });

  it('sends one `change` per write, each naming the flags it touched and a new revision', async () => {
    const { ns, p } = await newNamespace(api, 'ev');
    const events = await follow(ns);
    const revisions = [events.ready.revision];
    const expectChange = async (flags: string[]) => {
      const change = await events.next('change');
      expect(change).toEqual({ namespace: ns, revision: expect.any(String), flags });
      expect(revisions).not.toContain(change.revision);
      revisions.push(change.revision);
    };
    const a = unique('a');
    const b = unique('b');
    expectStatus(await api.post(`${p}/flags`, { key: a, name: 'A' }), 200);
    await expectChange([a]);
    expectStatus(await api.post(`${p}/flags`, { key: b, name: 'B' }), 200);
    await expectChange([b]);
    expectStatus(await api.put(`${p}/flags/${a}`, { name: 'A renamed', enabled: true }), 200);
    await expectChange([a]);
    expectStatus(await api.post(`${p}/flags/${b}/variants`, { key: 'on' }), 200);
    await expectChange([b]);
    expectStatus(await api.delete(`${p}/flags/${a}`), 200);
    await expectChange([a]);
    // Exactly one event per write: the next one is the next write's, nothing in between.
    expectStatus(await api.put(`${p}/flags/${b}`, { name: 'B renamed' }), 200);
    await expectChange([b]);
  });

  it("a segment's change moves the revision; the flags whose rules use it are named", async () => {
    const { ns, p } = await newNamespace(api, 'ev');
    const flag = unique('f');
    const other = unique('other');
    expectStatus(await api.post(`${p}/flags`, { key: flag, name: 'F' }), 200);
    expectStatus(await api.post(`${p}/flags`, { key: other, name: 'Other' }), 200);
    const events = await follow(ns);

    const seg = unique('seg');
    expectStatus(await api.post(`${p}/segments`, { key: seg, name: 'Seg' }), 200);
    const created = await events.next('change');
    expect(created.flags).toEqual([]);
    expect(created.revision).not.toBe(events.ready.revision);

    expectStatus(await api.post(`${p}/flags/${flag}/rules`, { segmentKey: seg, rank: 1 }), 200);
    expect((await events.next('change')).flags).toEqual([flag]);
    expectStatus(await api.post(`${p}/segments/${seg}/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro' }), 200);
    const constrained = await events.next('change');
    expect(constrained.flags).toEqual([flag]);
    expect(constrained.revision).not.toBe(created.revision);
  });

  it('follows a namespace created after the stream opened; other namespaces are not heard', async () => {
    const ns = unique('later');
    const events = await follow(ns);
    expect(events.ready.revision).toBe('');
    const { p: elsewhere } = await newNamespace(api, 'ev');
    expectStatus(await api.post(`${elsewhere}/flags`, { key: 'not-mine', name: 'Not mine' }), 200);
    expectStatus(await api.post('/api/v1/namespaces', { key: ns, name: ns }), 200);
    const created = await events.next('change');
    expect(created).toEqual({ namespace: ns, revision: expect.any(String), flags: [] });
    expectStatus(await api.post(`/api/v1/namespaces/${ns}/flags`, { key: 'mine', name: 'Mine' }), 200);
    expect((await events.next('change')).flags).toEqual(['mine']);
  });

  it('HEAD answers GET’s status and headers without holding a stream', async () => {
    const { ns } = await newNamespace(api, 'ev');
    const head = await rawRequest(server.url, 'HEAD', `/api/v1/namespaces/${ns}/events`);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(head.body.length).toBe(0);
  });

  it('1,000 streams opened and dropped leave no stream and no watch held', async () => {
    const { ns } = await newNamespace(api, 'churn');
    const live = server.service.services.live;
    const held = { size: live.size, watches: live.watches };
    const { hostname, port } = new URL(server.url);
    /** Opens a stream on a raw socket, waits for its `ready` frame, then drops the connection. */
    const cycle = (i: number) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), hostname);
        let text = '';
        socket.setEncoding('latin1');
        socket.on('error', reject);
        socket.on('data', (chunk: string) => {
          text += chunk;
          if (!text.includes('\r\n\r\n')) return;
          if (!text.startsWith('HTTP/1.1 200')) {
            socket.destroy();
            reject(new Error(`stream ${i}: ${text}`));
          } else if (text.includes('event: ready')) {
            socket.destroy();
            resolve();
          }
        });
        // Every fourth on another namespace: watches come and go, not just streams.
        socket.write(`GET /api/v1/namespaces/${i % 4 === 0 ? `${ns}-${i}` : ns}/events HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
      });
    for (let batch = 0; batch < 1000; batch += 50) await Promise.all(Array.from({ length: 50 }, (_, i) => cycle(batch + i)));
    expect(live.stats.opened).toBeGreaterThanOrEqual(1000);
    await until(() => live.size === held.size && live.watches === held.watches, 'every dropped stream has let go', 5000);
    // The streams this file still holds are the only ones.
    expect({ size: live.size, watches: live.watches }).toEqual(held);
  });
});

describe('the namespace event stream: limits, authentication, shutdown', () => {
  const BOOTSTRAP = 'events-bootstrap-token';
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ ...tokenAuth(BOOTSTRAP), PENNON_STREAMS_MAX: '2', PENNON_STREAMS_HEARTBEAT_INTERVAL: '100ms' });
  });
  afterAll(() => server?.stop());
  const bearer = { authorization: `Bearer ${BOOTSTRAP}` };

  it('wants a token (401 without one, before any stream), and a scoped token only on its namespace', async () => {
    const res = await fetch(`${server.url}/api/v1/namespaces/default/events`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toMatchObject({ code: 16 });
    expect(server.service.services.live.size).toBe(0);

    const api = server.api.withHeaders(bearer);
    const { clientToken } = expectStatus(await api.post('/auth/v1/method/token', { name: 'scoped', namespaceKey: 'default' }), 200);
    const scoped = await openEvents(server.url, 'default', { headers: { authorization: `Bearer ${clientToken}` } });
    scoped.close();
    await expect(openEvents(server.url, 'elsewhere', { headers: { authorization: `Bearer ${clientToken}` } })).rejects.toMatchObject({ status: 401 });
    await until(() => server.service.services.live.size === 0, 'the scoped stream is let go');
  });

  it('a token deleted while its stream is open ends the stream (at the next heartbeat)', async () => {
    const api = server.api.withHeaders(bearer);
    const created = expectStatus(await api.post('/auth/v1/method/token', { name: 'short-lived' }), 200);
    const events = await openEvents(server.url, 'default', { headers: { authorization: `Bearer ${created.clientToken}` } });
    const kept = await openEvents(server.url, 'default', { headers: bearer });
    expectStatus(await api.delete(`/auth/v1/tokens/${created.authentication.id}`), 200);
    await events.ended;
    // The other token's stream goes on: its next heartbeat comes.
    const heard = kept.raw.length;
    await until(() => kept.raw.length > heard, 'the kept stream hears a heartbeat', 5000);
    await expect(openEvents(server.url, 'default', { headers: { authorization: `Bearer ${created.clientToken}` } })).rejects.toMatchObject({ status: 401 });
    kept.close();
    await until(() => server.service.services.live.size === 0, 'every stream is let go');
  });

  it('streams.max: the next stream is a 503 before any byte; a freed place is taken again', async () => {
    const first = await openEvents(server.url, 'default', { headers: bearer });
    const second = await openEvents(server.url, 'default', { headers: bearer });
    const refused = await fetch(`${server.url}/api/v1/namespaces/default/events`, { headers: bearer });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 14, message: expect.stringContaining('streams.max') });
    first.close();
    await until(() => server.service.services.live.size === 1, 'the closed stream is let go');
    const third = await openEvents(server.url, 'default', { headers: bearer });
    second.close();
    third.close();
    await until(() => server.service.services.live.size === 0, 'every stream is let go');
  });

  it('ends every stream at shutdown (live.close()), and refuses new ones', async () => {
    const events = await openEvents(server.url, 'default', { headers: bearer });
    server.service.services.live.close();
    await events.ended;
    const refused = await fetch(`${server.url}/api/v1/namespaces/default/events`, { headers: bearer });
    expect(refused.status).toBe(503);
    await refused.body?.cancel();
  });
});

describe('the namespace event stream over Git environments', () => {
  let remote: GitRemote;
  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit({ 'prod/shop/features.yaml': everyoneGets('shop', 'blue'), 'staging/shop/features.yaml': everyoneGets('shop', 'red') });
  });
  afterAll(() => remote?.close());
  const server = useServer(() => productionAndStaging(remote.url));

  it('follows the environment named by ?environment= or X-Flipt-Environment (the default without), each hearing its own commits', async () => {
    const production = await openEvents(server.url, 'shop');
    const staging = await openEvents(server.url, 'shop', { query: '?environment=staging' });
    const stagingByHeader = await openEvents(server.url, 'shop', { headers: { 'x-flipt-environment': 'staging' } });
    try {
      expect(staging.ready.revision).toBe(stagingByHeader.ready.revision);
      const sync = () => server.service.environments!.repositories.get('flags')!.requestSync();

      remote.commit({ 'staging/shop/features.yaml': everyoneGets('shop', 'green') });
      await sync();
      expect(await staging.next('change', 5000)).toEqual({ namespace: 'shop', revision: expect.any(String), flags: ['colour'] });
      expect((await stagingByHeader.next('change', 5000)).flags).toEqual(['colour']);

      remote.commit({ 'prod/shop/features.yaml': everyoneGets('shop', 'yellow') });
      await sync();
      // Production's first change is this commit's: staging's commit was not heard there.
      const change = await production.next('change', 5000);
      expect(change.flags).toEqual(['colour']);
      expect(change.revision).not.toBe(production.ready.revision);
    } finally {
      for (const s of [production, staging, stagingByHeader]) s.close();
    }
  });

  it('an unknown environment is a 404 naming it', async () => {
    const res = await fetch(`${server.url}/api/v1/namespaces/shop/events?environment=nowhere`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 5, message: 'environment "nowhere" not found' });
  });
});
