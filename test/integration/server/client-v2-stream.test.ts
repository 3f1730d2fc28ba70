import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLineStream } from '../../support/line-stream';
import { expectStatus, startServer, useServer, useTokenServer, type TestServer } from '../../support/server';
import { until } from '../../support/wait';

/**
 * Issue 19, item 3: Flipt v2's client API for client-side SDKs on the database back end (its
 * environment is `default`): the snapshot with its digest, and the stream of snapshots — one
 * `{"result": …}` line on connect and after each change, none when the digest would repeat.
 */

const snapshotPath = (ns = 'default', env = 'default') => `/client/v2/environments/${env}/namespaces/${ns}/snapshot`;
const streamUrl = (server: TestServer, ns = 'default', query = '', env = 'default') => `${server.url}/client/v2/environments/${env}/namespaces/${ns}/stream${query}`;

/** A variant flag with a rule over a constrained segment, and a boolean flag with rollouts. */
async function seed(server: TestServer, ns = 'default'): Promise<void> {
  const api = server.api;
  const base = `/api/v1/namespaces/${ns}`;
  expectStatus(await api.post(`${base}/flags`, { key: 'colour', name: 'Colour', enabled: true }), 200);
  const blue = expectStatus(await api.post(`${base}/flags/colour/variants`, { key: 'blue', attachment: '{"hex":"#0000ff"}' }), 200);
  expectStatus(await api.post(`${base}/flags/colour/variants`, { key: 'red' }), 200);
  expectStatus(await api.post(`${base}/segments`, { key: 'members', name: 'Members', matchType: 'ALL_MATCH_TYPE' }), 200);
  expectStatus(await api.post(`${base}/segments/members/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'member' }), 200);
  const rule = expectStatus(await api.post(`${base}/flags/colour/rules`, { segmentKey: 'members', rank: 1 }), 200);
  expectStatus(await api.post(`${base}/flags/colour/rules/${rule.id}/distributions`, { variantId: blue.id, rollout: 100 }), 200);
  expectStatus(await api.post(`${base}/flags`, { key: 'checkout', name: 'Checkout', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
  expectStatus(await api.post(`${base}/flags/checkout/rollouts`, { rank: 1, threshold: { percentage: 25, value: true } }), 200);
}

const colourEnabled = (snapshot: { flags: { key: string; enabled: boolean }[] }) => snapshot.flags.find((f) => f.key === 'colour')?.enabled;

/** A GET with exactly these headers; the body as it arrived, decoded by its Content-Encoding. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; json: unknown }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const bytes = encoding === 'br' ? brotliDecompressSync(body) : encoding === 'gzip' ? gunzipSync(body) : body;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json: bytes.length === 0 ? undefined : JSON.parse(bytes.toString('utf8')) });
      });
    })
      .on('error', reject)
      .end();
  });
}

describe('Flipt v2 client snapshot and stream (database)', () => {
  const server = useServer();
  const snapshotNow = async (ns = 'default') => expectStatus(await server.api.get(snapshotPath(ns)), 200);
  beforeAll(async () => {
    await seed(server);
    expectStatus(await server.api.post('/api/v1/namespaces', { key: 'other', name: 'Other' }), 200);
  });

  it('the snapshot is the v1 client snapshot plus its digest, which is its ETag (304 on a match), in every encoding', async () => {
    const v1 = expectStatus(await server.api.request('GET', '/internal/v1/evaluation/snapshot/namespace/default', undefined, { 'x-flipt-accept-server-version': '1.47.0' }), 200);
    const res = await server.api.get(snapshotPath());
    const v2 = expectStatus(res, 200);
    expect(v2.digest).toMatch(/^[0-9a-f]{40}$/);
    const { digest, ...content } = v2;
    expect(content).toEqual(v1);
    expect(Object.keys(v2)).toEqual(['namespace', 'flags', 'digest']);
    expect(res.headers.get('etag')).toBe(digest);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    for (const encoding of ['identity', 'gzip', 'br']) {
      const answer = await rawGet(server.url + snapshotPath(), { 'accept-encoding': encoding });
      expect([answer.status, answer.json]).toEqual([200, v2]);
      const revalidated = await rawGet(server.url + snapshotPath(), { 'accept-encoding': encoding, 'if-none-match': digest });
      expect([revalidated.status, revalidated.headers.etag, revalidated.json]).toEqual([304, digest, undefined]);
    }
    // Another instance of the same content has the same digest: the digest is the content's, not the revision's.
    expect((await snapshotNow()).digest).toBe(digest);
  });

  it('an unknown environment is Flipt’s 404, and so is a namespace that does not exist; a bad digest is a 400; HEAD holds nothing', async () => {
    const env = await server.api.get(snapshotPath('default', 'production'));
    expect([env.status, env.body]).toEqual([404, { code: 5, message: 'environment "production" not found', details: [] }]);
    const ns = await server.api.get(snapshotPath('nowhere'));
    expect([ns.status, ns.body]).toEqual([404, { code: 5, message: 'evaluation snapshot for namespace "nowhere" not found', details: [] }]);
    // The stream refuses as grpc-gateway does before a stream's first message: the error as a line.
    const stream = await openLineStream(streamUrl(server, 'default', '', 'production'));
    expect([stream.status, await stream.next()]).toEqual([404, { error: { code: 5, message: 'environment "production" not found', details: [] } }]);
    await stream.ended;
    // HEAD answers a stream's headers and holds nothing open.
    const head = await fetch(streamUrl(server), { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'application/json', '']);
    expect(server.service.services.live.size).toBe(0);
    const short = await openLineStream(streamUrl(server, 'default', '?digest=abc'));
    expect([short.status, await short.next()]).toEqual([400, { error: { code: 3, message: 'invalid field digest: must be a 40-character string', details: [] } }]);
  });

  it('streams the snapshot on connect, then exactly one frame per change, each equal to the snapshot at that moment', async () => {
    const stream = await openLineStream(streamUrl(server));
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('application/json');
      const first = await stream.next();
      expect(Object.keys(first)).toEqual(['result']);
      expect(first.result).toEqual(await snapshotNow());

      expectStatus(await server.api.put('/api/v1/namespaces/default/flags/colour', { key: 'colour', name: 'Colour', enabled: false }), 200);
      const second = await stream.next();
      expect(colourEnabled(second.result)).toBe(false);
      expect(second.result.digest).not.toBe(first.result.digest);
      expect(second.result).toEqual(await snapshotNow());

      // Nothing a client evaluates changes: the same flag written again (only its updatedAt
      // moves), a segment no flag uses, and a write in another namespace. The snapshot read
      // after each is the one the stream was told of (its digest decided), and keeps the digest.
      expectStatus(await server.api.put('/api/v1/namespaces/default/flags/colour', { key: 'colour', name: 'Colour', enabled: false }), 200);
      expect((await snapshotNow()).digest).toBe(second.result.digest);
      expectStatus(await server.api.post('/api/v1/namespaces/default/segments', { key: 'unused', name: 'Unused' }), 200);
      expect((await snapshotNow()).digest).toBe(second.result.digest);
      expectStatus(await server.api.post('/api/v1/namespaces/other/flags', { key: 'elsewhere', name: 'Elsewhere' }), 200);
      expect(stream.queued).toBe(0);

      // The next frame is the next change's: none came for the writes above.
      expectStatus(await server.api.put('/api/v1/namespaces/default/flags/colour', { key: 'colour', name: 'Colour', enabled: true }), 200);
      const third = await stream.next();
      expect(colourEnabled(third.result)).toBe(true);
      expect(third.result).toEqual(await snapshotNow());
      expect(stream.received).toBe(3);
    } finally {
      stream.close();
    }
  });

  it('a client connecting with the current digest gets nothing until a change', async () => {
    const current = await snapshotNow();
    const stream = await openLineStream(streamUrl(server, 'default', `?digest=${current.digest}`));
    try {
      expect(stream.status).toBe(200);
      // Held (and its first snapshot weighed) before the change below.
      await until(() => server.service.services.live.size === 1, 'the stream is held');
      expectStatus(await server.api.put('/api/v1/namespaces/default/flags/checkout', { key: 'checkout', name: 'Checkout', enabled: false }), 200);
      const frame = await stream.next();
      expect(frame.result.flags.find((f: { key: string }) => f.key === 'checkout').enabled).toBe(false);
      expect(frame.result).toEqual(await snapshotNow());
      expect(stream.received).toBe(1);
    } finally {
      stream.close();
    }
    // A stale digest is sent the snapshot at once.
    const stale = await openLineStream(streamUrl(server, 'default', `?digest=${current.digest}`));
    try {
      expect((await stale.next()).result).toEqual(await snapshotNow());
    } finally {
      stale.close();
    }
  });

  it('a stream on a namespace that does not exist yet sends its first frame when it is created', async () => {
    const stream = await openLineStream(streamUrl(server, 'later'));
    try {
      expect(stream.status).toBe(200);
      await until(() => server.service.services.live.size === 1, 'the stream is held');
      expectStatus(await server.api.post('/api/v1/namespaces', { key: 'later', name: 'Later' }), 200);
      const frame = await stream.next();
      expect(frame.result).toEqual(await snapshotNow('later'));
      expect(frame.result.flags).toEqual([]);
    } finally {
      stream.close();
    }
  });

  it('1,000 clients connecting and going away leave no stream and no watch behind', async () => {
    const live = server.service.services.live;
    await until(() => live.size === 0, 'earlier streams are gone');
    const digest = (await snapshotNow()).digest;
    for (let i = 0; i < 1000; i++) {
      // Some leave after their first frame, some at once, some holding the current digest.
      const query = i % 3 === 2 ? `?digest=${digest}` : '';
      const stream = await openLineStream(streamUrl(server, i % 2 === 0 ? 'default' : 'other', query));
      if (i % 3 === 0) await stream.next();
      stream.close();
    }
    await until(() => live.size === 0 && live.watches === 0, 'every stream and watch is released');
  }, 60_000);
});

describe('Flipt v2 client stream: authentication', () => {
  const { server, admin } = useTokenServer('v2-bootstrap', 'other');
  let scoped = '';
  beforeAll(async () => {
    expectStatus(await admin.post('/api/v1/namespaces', { key: 'other', name: 'Other' }), 200);
    scoped = expectStatus(await admin.post('/auth/v1/method/token', { name: 'other reader', namespaceKey: 'other' }), 200).clientToken;
  });

  it('wants a token (401, as an error line on the stream); a namespace-scoped token reads its own namespace only', async () => {
    const bare = await server.api.get(snapshotPath());
    expect([bare.status, bare.body.code]).toEqual([401, 16]);
    const anonymous = await openLineStream(streamUrl(server));
    expect([anonymous.status, await anonymous.next()]).toEqual([401, { error: { code: 16, message: 'request was not authenticated', details: [] } }]);

    const withToken = await openLineStream(streamUrl(server), { authorization: 'Bearer v2-bootstrap' });
    expect(withToken.status).toBe(200);
    expect((await withToken.next()).result.namespace).toEqual({ key: 'default' });
    withToken.close();

    const elsewhere = await openLineStream(streamUrl(server), { authorization: `Bearer ${scoped}` });
    expect([elsewhere.status, (await elsewhere.next()).error.code]).toEqual([401, 16]);
    const own = await openLineStream(streamUrl(server, 'other'), { authorization: `Bearer ${scoped}` });
    expect(own.status).toBe(200);
    expect((await own.next()).result.namespace).toEqual({ key: 'other' });
    own.close();
    expect((await server.api.withHeaders({ authorization: `Bearer ${scoped}` }).get(snapshotPath('other'))).status).toBe(200);
  });
});

describe('Flipt v2 client stream: limits and shutdown', () => {
  const server = useServer({ PENNON_STREAMS_MAX: '1' });

  it('beyond streams.max a stream is refused with 503 before its first byte; a freed place is taken again', async () => {
    const first = await openLineStream(streamUrl(server));
    await first.next();
    const refused = await openLineStream(streamUrl(server));
    expect(refused.status).toBe(503);
    expect((await refused.next()).error).toMatchObject({ code: 14, message: expect.stringContaining('streams.max') });
    first.close();
    await until(() => server.service.services.live.size === 0, 'the first stream is released');
    const again = await openLineStream(streamUrl(server));
    expect(again.status).toBe(200);
    await again.next();
    again.close();
  });

  it('shutdown ends a stream cleanly: its last frame whole, then the end of the response', async () => {
    const own = await startServer();
    const stream = await openLineStream(streamUrl(own));
    expect((await stream.next()).result.namespace).toEqual({ key: 'default' });
    const report = await own.stop();
    await stream.ended; // rejects on a cut connection or a partial line
    expect(report.cut).toBe(0);
    expect(stream.queued).toBe(0);
  });
});

/** One flag whose 50 rules each serve a variant with a 250 KB attachment: a 12 MB snapshot document. */
const heavyDocument = () => `version: "1.4"
namespace: heavy
flags:
  - key: heavy
    name: Heavy
    enabled: true
    variants:
      - key: big
        attachment:
          blob: "${'x'.repeat(250_000)}"
    rules:
${Array.from({ length: 50 }, () => '      - segment: everyone\n        distributions:\n          - variant: big\n            rollout: 100\n').join('')}segments:
  - key: everyone
    name: Everyone
    match_type: ALL_MATCH_TYPE
`;

describe('Flipt v2 client stream: a stalled reader', () => {
  // Heartbeat ticks are when a stalled reader is looked for; the smallest backlog allowed.
  const server = useServer({ PENNON_STREAMS_MAX_BUFFERED_BYTES: '1024', PENNON_STREAMS_HEARTBEAT_INTERVAL: '200ms' });
  beforeAll(async () => {
    expectStatus(await server.api.request('POST', '/api/v1/import', heavyDocument(), { 'content-type': 'application/yaml' }), 200);
  });

  it('is dropped once it takes nothing for a heartbeat interval with more than streams.max_buffered_bytes waiting; a reader that keeps up is not', async () => {
    const live = server.service.services.live;
    const reader = await openLineStream(streamUrl(server, 'heavy'));
    const stalled = await openLineStream(streamUrl(server, 'heavy'));
    try {
      stalled.pause();
      const frame = await reader.next(30_000);
      expect(frame.result.flags[0].rules).toHaveLength(50);
      expect(JSON.stringify(frame).length).toBeGreaterThan(12_000_000);
      await until(() => live.size === 1, 'the stalled reader is dropped', 20_000);
      // The one that reads is still followed.
      expectStatus(await server.api.put('/api/v1/namespaces/heavy/flags/heavy', { key: 'heavy', name: 'Heavy', enabled: false }), 200);
      expect((await reader.next(30_000)).result.flags[0].enabled).toBe(false);
      expect(live.size).toBe(1);
    } finally {
      reader.close();
      stalled.close();
    }
  }, 60_000);
});
