import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/cli';
import { parseResponse, rawRequest, type RawResponse } from '../../support/raw-http';
import { fillTemplate, routeTemplates } from '../../support/route-templates';
import { expectStatus, startServer, useServer } from '../../support/server';

/**
 * HEAD answers exactly what GET would — status and headers (Content-Length, Content-Encoding,
 * ETag, Vary, …) — without a body, on every GET route of the app (taken from its route table:
 * the API, /health, /metrics, /meta, the dashboard's files, the client snapshot), with and
 * without gzip and If-None-Match; and from the health lane while starting or draining.
 */

/** Headers that differ between any two responses, or only describe the framing of a body. */
const PER_RESPONSE = new Set(['date', 'x-request-id', 'transfer-encoding']);
const comparable = (r: RawResponse, volatile = false) =>
  Object.fromEntries(
    Object.entries(r.headers)
      .filter(([name]) => !PER_RESPONSE.has(name))
      .map(([name, value]) => [name, volatile && name === 'content-length' ? 'present' : value]),
  );

/** A HEAD and a GET of the same path with the same headers: equal but for the body. */
async function headAndGet(url: string, path: string, headers: Record<string, string> = {}) {
  const head = await rawRequest(url, 'HEAD', path, headers);
  const get = await rawRequest(url, 'GET', path, headers);
  return { head, get };
}

describe('HEAD on every GET route', () => {
  const server = useServer({ PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true' });
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const api = server.api;
    // Enough flags for a list above the 1 KiB gzip threshold.
    for (let i = 0; i < 30; i++) expectStatus(await api.post('/api/v1/flags', { key: `head-${i}`, name: `Flag number ${i} for HEAD` }), 200);
    ids.variants = expectStatus(await api.post('/api/v1/flags/head-0/variants', { key: 'on' }), 200).id;
    expectStatus(await api.post('/api/v1/segments', { key: 'head-seg', name: 'Segment' }), 200);
    ids.constraints = expectStatus(await api.post('/api/v1/segments/head-seg/constraints', { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' }), 200).id;
    ids.rules = expectStatus(await api.post('/api/v1/flags/head-0/rules', { segmentKey: 'head-seg', rank: 1 }), 200).id;
    expectStatus(await api.post('/api/v1/flags', { key: 'head-bool', name: 'Boolean', type: 'BOOLEAN_FLAG_TYPE' }), 200);
    ids.rollouts = expectStatus(await api.post('/api/v1/namespaces/default/flags/head-bool/rollouts', { rank: 1, threshold: { percentage: 50, value: true } }), 200).id;
    ids.tokens = expectStatus(await api.post('/auth/v1/method/token', { name: 'head' }), 200).authentication.id;
  });

  /** A seeded value for a path parameter, by the collection the parameter is in. */
  function valueFor(url: string, param: string): string {
    const segments = url.split('/');
    const collection = segments[segments.indexOf(`:${param}`) - 1];
    if (param === 'namespaceKey' || collection === 'namespaces' || collection === 'namespace') return 'default';
    if (collection === 'flags') return url.includes('rollouts') ? 'head-bool' : 'head-0';
    if (collection === 'segments') return 'head-seg';
    return ids[collection] ?? 'unknown';
  }

  it('answers every GET route (collected from the app) with GET’s status and headers and no body', async () => {
    const routes = routeTemplates(server).filter((r) => r.method === 'GET');
    expect(routes.map((r) => r.url)).toEqual(expect.arrayContaining(['/health', '/metrics', '/meta/info', '/', '/internal/v1/evaluation/snapshot/namespace/:key']));
    // Every GET route is served for HEAD too.
    const heads = new Set(routeTemplates(server).filter((r) => r.method === 'HEAD').map((r) => r.url));
    expect(routes.filter((r) => !heads.has(r.url)).map((r) => r.url)).toEqual([]);

    const problems: string[] = [];
    const statuses = new Set<number>();
    let compressed = 0;
    for (const route of routes) {
      const path = fillTemplate(route.url, (param) => valueFor(route.url, param));
      for (const headers of [{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]) {
        const { head, get } = await headAndGet(server.url, path, headers);
        statuses.add(get.status);
        if (get.headers['content-encoding'] === 'gzip') compressed++;
        const label = `${path} ${JSON.stringify(headers)}`;
        if (head.body.length !== 0) problems.push(`${label}: HEAD sent ${head.body.length} body bytes`);
        if (head.status !== get.status) problems.push(`${label}: HEAD ${head.status}, GET ${get.status}`);
        // /metrics counts these very requests: its length moves between any two scrapes, so
        // only its presence is compared there.
        const volatile = route.url === '/metrics';
        const [have, want] = [comparable(head, volatile), comparable(get, volatile)];
        if (JSON.stringify(have) !== JSON.stringify(want)) problems.push(`${label}:\n  HEAD ${JSON.stringify(have)}\n  GET  ${JSON.stringify(want)}`);
        // A resource with an ETag: a matching If-None-Match is a 304 for both.
        const etag = get.headers.etag;
        if (etag !== undefined && get.status === 200) {
          const revalidated = await headAndGet(server.url, path, { ...headers, 'if-none-match': etag });
          if (revalidated.get.status !== 304 || revalidated.head.status !== 304 || revalidated.head.body.length !== 0) {
            problems.push(`${label} If-None-Match: HEAD ${revalidated.head.status}, GET ${revalidated.get.status}`);
          } else if (JSON.stringify(comparable(revalidated.head)) !== JSON.stringify(comparable(revalidated.get))) {
            problems.push(`${label} 304:\n  HEAD ${JSON.stringify(comparable(revalidated.head))}\n  GET  ${JSON.stringify(comparable(revalidated.get))}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    // The walk met what it set out to compare: successes, errors and compressed answers.
    expect(statuses).toContain(200);
    expect(compressed).toBeGreaterThan(2);
  });

  it('reads the namespace of an un-namespaced route from the query, as GET does', async () => {
    expectStatus(await server.api.post('/api/v1/namespaces', { key: 'head-other', name: 'Other' }), 200);
    expectStatus(await server.api.post('/api/v1/flags', { key: 'elsewhere', name: 'Elsewhere', namespaceKey: 'head-other' }), 200);
    for (const path of ['/api/v1/flags?namespaceKey=head-other', '/api/v1/flags/elsewhere?namespaceKey=head-other', '/api/v1/flags/head-0?namespaceKey=head-other']) {
      const { head, get } = await headAndGet(server.url, path);
      expect([head.status, head.body.length], path).toEqual([get.status, 0]);
      expect(comparable(head), path).toEqual(comparable(get));
    }
  });

  it('answers HEAD like GET on unknown paths and on paths without a GET route', async () => {
    for (const path of ['/no/such/path', '/evaluate/v1/variant', '/api/v1/namespaces/default/flags/head-0/variants']) {
      const { head, get } = await headAndGet(server.url, path);
      expect([head.status, head.body.length], path).toEqual([get.status, 0]);
      expect(comparable(head), path).toEqual(comparable(get));
    }
  });
});

describe('HEAD /health from the health lane', () => {
  it('while starting: 503 with the same headers as GET, no body', async () => {
    const [httpPort, grpcPort, deadPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const abort = new AbortController();
    const starting = startServer(
      {
        PENNON_SERVER_HOST: '127.0.0.1',
        PENNON_SERVER_HTTP_PORT: String(httpPort),
        PENNON_SERVER_GRPC_PORT: String(grpcPort),
        PENNON_DB_URL: `postgres://postgres@127.0.0.1:${deadPort}/pennon`, // nothing listens there: the instance stays starting
      },
      { signal: abort.signal },
    );
    starting.catch(() => undefined);
    try {
      const url = `http://127.0.0.1:${httpPort}`;
      // The listener opens before the database is tried: poll (bounded) until /health reports
      // the refused database, so that the report no longer changes between two requests.
      let problems: string[] = [];
      for (let i = 0; problems.length < 2 && i < 200; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 20));
        const res = await fetch(`${url}/health`).catch(() => null);
        if (res) problems = ((await res.json()) as { problems?: string[] }).problems ?? [];
      }
      expect(problems).toHaveLength(2);
      for (const path of ['/health', '/api/v1/namespaces']) {
        const pair = await headAndGet(url, path);
        expect([pair.head.status, pair.head.body.length], path).toEqual([503, 0]);
        expect(comparable(pair.head), path).toEqual(comparable(pair.get));
      }
    } finally {
      abort.abort();
      await starting.catch(() => undefined);
    }
  });
});

describe('HEAD /health while draining', () => {
  it('is answered by the health lane: 503, Content-Length of the report, Connection: close, no body', async () => {
    const server = await startServer({ PENNON_SERVER_SHUTDOWN_TIMEOUT: '5s' });
    const port = Number(new URL(server.url).port);
    // A request in flight keeps the server draining; a HEAD /health is pipelined behind it.
    const body = JSON.stringify({ key: 'inflight', name: 'In flight' });
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(`POST /api/v1/flags HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`);
    // The server has the request once its headers are parsed: wait for the connection to be busy.
    await new Promise<void>((resolve) => server.service.app.server.once('request', () => resolve()));
    const stopped = server.stop();
    socket.write(`${body.slice(10)}HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n`);
    await closed;
    await stopped;
    const text = Buffer.concat(received).toString('latin1');
    const second = text.slice(text.indexOf('HTTP/1.1 ', 1));
    const head = parseResponse(Buffer.from(second, 'latin1'));
    expect(head.status).toBe(503);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify({ status: 'NOT_SERVING', problems: ['shutting down'] }))));
    expect(head.headers.connection).toBe('close');
    expect(head.body.length).toBe(0);
  });
});
