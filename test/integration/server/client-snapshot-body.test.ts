import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { largeDocument } from '../../support/large-document';
import { expectStatus, useServer } from '../../support/server';
import { longestStall } from '../../support/stall';

/**
 * Issue 16, item 4: the client snapshot is serialised once per snapshot and version gate, in
 * slices with the event loop free between them, kept compressed (gzip and brotli) and streamed.
 */

type Answer<B> = { status: number; headers: Record<string, string | string[] | undefined>; body: B };

/** A GET with exactly these headers (fetch would add its own Accept-Encoding and decode); the raw body as it arrived. */
function getChunks(url: string, headers: Record<string, string>): Promise<Answer<Buffer[]>> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: chunks }));
    })
      .on('error', reject)
      .end();
  });
}

async function get(url: string, headers: Record<string, string>): Promise<Answer<Buffer>> {
  const answer = await getChunks(url, headers);
  return { ...answer, body: Buffer.concat(answer.body) };
}

const decode = (r: { headers: Record<string, string | string[] | undefined>; body: Buffer }): unknown => {
  const encoding = r.headers['content-encoding'];
  const bytes = encoding === 'br' ? brotliDecompressSync(r.body) : encoding === 'gzip' ? gunzipSync(r.body) : r.body;
  return JSON.parse(bytes.toString('utf8'));
};

/** `flags` flags of two rules each over 20 shared segments of 3 constraints, as one import document. */
const document = (flags: number) => largeDocument({ flags, segments: 20, variants: ['a', 'b'], rollouts: [50, 50], segmentsOf: (i) => [i % 20, (i + 7) % 20] });

describe('the client snapshot body', () => {
  const server = useServer();
  const path = () => `${server.url}/internal/v1/evaluation/snapshot/namespace/default`;
  beforeAll(async () => {
    expectStatus(await server.api.request('POST', '/api/v1/import', document(30), { 'content-type': 'application/yaml' }), 200);
  });

  it('is the same document in every encoding, with its length, encoding and Vary; built once per snapshot and gate', async () => {
    const bodies = server.service.app.snapshotBodies;
    const before = bodies.stats.builds;
    const identity = await get(path(), {});
    const gzip = await get(path(), { 'accept-encoding': 'gzip, deflate' });
    const br = await get(path(), { 'accept-encoding': 'gzip, br' });
    for (const r of [identity, gzip, br]) {
      expect(r.status).toBe(200);
      expect(r.headers.vary).toMatch(/Accept-Encoding/i);
      expect(Number(r.headers['content-length'])).toBe(r.body.length);
      expect(decode(r)).toEqual(decode(identity));
    }
    expect([identity.headers['content-encoding'], gzip.headers['content-encoding'], br.headers['content-encoding']]).toEqual([undefined, 'gzip', 'br']);
    expect((decode(identity) as { flags: unknown[] }).flags).toHaveLength(30);
    expect(bodies.stats.builds - before).toBe(1);
    // Another version gate is another document; a write makes a new snapshot, hence a new build.
    await get(path(), { 'x-flipt-accept-server-version': '1.47.0' });
    expect(bodies.stats.builds - before).toBe(2);
    expectStatus(await server.api.put('/api/v1/namespaces/default/flags/flag-3', { key: 'flag-3', name: 'Renamed', enabled: false }), 200);
    const after = await get(path(), { 'accept-encoding': 'br' });
    expect(bodies.stats.builds - before).toBe(3);
    expect((decode(after) as { flags: { key: string; name: string }[] }).flags.find((f) => f.key === 'flag-3')?.name).toBe('Renamed');
    // The ETag is the revision's, whatever the encoding: a match is a 304.
    expect(after.headers.etag).toBeDefined();
    expect((await get(path(), { 'accept-encoding': 'gzip', 'if-none-match': String(after.headers.etag) })).status).toBe(304);
  });

  it('honours Accept-Encoding’s q-values: br, then gzip, then identity', async () => {
    const encodingFor = async (accept: string) => (await get(path(), { 'accept-encoding': accept })).headers['content-encoding'] ?? 'identity';
    expect(await encodingFor('br;q=0, gzip')).toBe('gzip');
    expect(await encodingFor('gzip;q=0.5, br;q=0.4')).toBe('gzip');
    expect(await encodingFor('*')).toBe('br');
    expect(await encodingFor('identity')).toBe('identity');
    expect(await encodingFor('deflate')).toBe('identity');
  });
});

describe('the client snapshot of 10,000 flags', () => {
  const server = useServer();
  beforeAll(async () => {
    expectStatus(await server.api.request('POST', '/api/v1/import', document(10_000), { 'content-type': 'application/yaml' }), 200);
    // The namespace's evaluation snapshot rebuilt after the import (a rebuild's own stall is item 1's, not measured here).
    expectStatus(await server.api.post('/evaluate/v1/variant', { flagKey: 'flag-1', entityId: 'e' }), 200);
  }, 180_000);

  it('is built and fetched in every encoding without holding the event loop more than 50 ms', async () => {
    const path = `${server.url}/internal/v1/evaluation/snapshot/namespace/default`;
    const sizes: Record<string, number> = {};
    for (const accept of ['br', 'gzip', 'identity']) {
      const started = performance.now();
      // The client's chunks are joined after the measurement: this process is the server and the
      // client, and copying 20 MB into one buffer here held the loop ~60 ms that are not the server's.
      const { result, cpuMs, wallMs } = await longestStall(() => getChunks(path, { 'accept-encoding': accept }));
      expect(result.status).toBe(200);
      const bytes = result.body.reduce((sum, chunk) => sum + chunk.length, 0);
      sizes[accept] = bytes;
      console.log(`10,000 flags, ${accept}: ${(bytes / 1e6).toFixed(2)} MB in ${(performance.now() - started).toFixed(0)} ms; longest stall ${cpuMs.toFixed(1)} ms of CPU (${wallMs.toFixed(1)} ms wall)`);
      expect(cpuMs).toBeLessThan(50);
    }
    expect(sizes.identity).toBeGreaterThan(5_000_000);
    expect(sizes.gzip).toBeLessThan(sizes.identity / 5);
    expect(sizes.br).toBeLessThan(sizes.identity / 5);
  }, 120_000);
});
