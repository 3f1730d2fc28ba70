import { describe, expect, it } from 'vitest';
import { largeDocument } from '../../support/large-document';
import { expectStatus, useServer } from '../../support/server';
import { longestStall } from '../../support/stall';

/**
 * Issue 16, item 1: the bulk import route runs each import on a thread of its own, with its own
 * connection (internal/service/import-thread.ts), on every back end: the server's event loop
 * stays free while a document is decoded and written, the thread's committed changes reach the
 * evaluations before the answer, and its refusals are the same 400s with document and line.
 */

describe('the bulk import on its own thread', () => {
  const server = useServer();
  const importing = (path: string, body: string) => server.api.request('POST', path, body, { 'content-type': 'application/yaml' });

  it('imports 2,000 flags without holding the event loop more than 50 ms; evaluations and lists see them at once', async () => {
    // 2,000 flags of four rules over 20 segments: 2.7 MB, ~300 ms of decoding on one thread.
    const document = largeDocument({ flags: 2000, segments: 20, variants: ['a', 'b', 'c'], rollouts: [30, 30, 40], segmentsOf: (i) => [i % 20, (i + 3) % 20, (i + 7) % 20, (i + 11) % 20] })
      .replace('namespace: default', 'namespace: threaded');
    // A first, small import: this process is also the client, whose first fetch loads undici
    // (~45 ms), and from source the thread's code is bundled on first use.
    expectStatus(await importing('/api/v1/import', 'namespace: warm-up\nflags:\n- {key: f, name: F}\n'), 200);
    const started = performance.now();
    const { result, cpuMs, wallMs } = await longestStall(() => importing('/api/v1/import', document));
    console.log(`bulk import of 2,000 flags (${(document.length / 1e6).toFixed(1)} MB): ${(performance.now() - started).toFixed(0)} ms; longest stall ${cpuMs.toFixed(1)} ms of CPU (${wallMs.toFixed(1)} ms wall)`);
    expect(expectStatus(result, 200).created).toMatchObject({ namespaces: 1, flags: 2000, variants: 6000, segments: 20, constraints: 60, rules: 8000, distributions: 24000 });
    expect(cpuMs).toBeLessThan(50);

    // Read-your-writes: the thread's changes were announced before the answer.
    const variant = expectStatus(await server.api.post('/evaluate/v1/variant', { namespaceKey: 'threaded', flagKey: 'flag-1999', entityId: 'u1', context: { plan: 'plan-19', age: '30', beta: 'true' } }), 200);
    expect([variant.reason, variant.segmentKeys]).toEqual(['MATCH_EVALUATION_REASON', ['seg-19']]);
    expect(expectStatus(await server.api.get('/api/v1/namespaces/threaded/flags?limit=1'), 200).totalCount).toBe(2000);
    // Into a namespace whose snapshot is held: the next evaluation must not wait for the poller.
    expectStatus(await importing('/api/v1/namespaces/threaded/import', 'flags:\n- {key: late, name: Late, type: BOOLEAN_FLAG_TYPE, enabled: true}\n'), 200);
    expect(expectStatus(await server.api.post('/evaluate/v1/boolean', { namespaceKey: 'threaded', flagKey: 'late', entityId: 'u1' }), 200).enabled).toBe(true);
  }, 120_000);

  it('answers a broken document with the decoder’s 400 (document and line) and writes nothing', async () => {
    const broken = ['version: "1.4"', 'namespace: broken', 'flags:', '- key: ok', '  name: OK', '- key: bad', '  name: [unclosed', ''].join('\n');
    const res = await importing('/api/v1/import', broken);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^unmarshalling document: yaml: .*\(document 1, line 8\)/);
    expectStatus(await server.api.get('/api/v1/namespaces/broken'), 404);
  });

  it('answers a reference to a missing segment with the plan’s 400, naming the flag, and writes nothing', async () => {
    const dangling = ['version: "1.4"', 'namespace: dangling', 'flags:', '- key: f', '  name: F', '  rules:', '  - segment: nowhere', ''].join('\n');
    const res = await importing('/api/v1/import', dangling);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('segment "dangling/nowhere" not found in the document or the store (document 1, namespace "dangling", flag "f", field rules[0].segment, line 7)');
    expectStatus(await server.api.get('/api/v1/namespaces/dangling'), 404);
  });
});
