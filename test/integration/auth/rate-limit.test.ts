import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { GrpcClient } from '../../support/grpc-client';
import { backends } from '../../support/backends';
import { sampleValue } from '../../support/scrape';
import { startServer, type TestServer } from '../../support/server';

/**
 * A flood of bad tokens against a real server (SQLite; PostgreSQL when PENNON_TEST_POSTGRES_URL is
 * set): past `max_failures` the address is refused with 429 and Retry-After before any lookup, so
 * the store sees at most `max_failures` of the guesses (counted by `auth_token_lookups_total`, which
 * increments where the store is queried); another address's valid token keeps answering; the
 * limiter tracks one address; the fast lane and gRPC refuse the limited address too; one warning.
 */

const FLOOD = 10_000;
const CONCURRENCY = 64;
const MAX_FAILURES = 20;
const BOOTSTRAP = 'flood-test-bootstrap-token';
const GRPC_RESOURCE_EXHAUSTED = 8;

const floodBackends = backends().filter((b) => b.name === 'sqlite' || b.name === 'postgres');

async function scrape(server: TestServer, name: string, labels: Record<string, string> = {}): Promise<number> {
  return sampleValue(await (await fetch(`${server.url}/metrics`)).text(), name, labels);
}

describe.each(floodBackends)('failed authentication flood on $name', ({ create }) => {
  it(`${FLOOD} bad tokens from one address: ${MAX_FAILURES} reach the store, the rest 429; another address is served`, { timeout: 60_000 }, async () => {
    const db = await create();
    const lines: { level: number; msg: string; address?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const flooder = new Agent({ localAddress: '127.0.0.1', connections: CONCURRENCY });
    const neighbour = new Agent({ localAddress: '127.0.0.2' });
    let server: TestServer | null = null;
    try {
      server = await startServer(
        {
          PENNON_DB_URL: db.url,
          PENNON_AUTHENTICATION_REQUIRED: 'true',
          PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
          PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: BOOTSTRAP,
          PENNON_AUTHENTICATION_RATE_LIMIT_MAX_FAILURES: String(MAX_FAILURES),
          PENNON_AUTHENTICATION_RATE_LIMIT_WINDOW: '1m',
        },
        { logger },
      );
      const base = server.url;
      const get = (agent: Agent, path: string, token: string) =>
        request(`${base}${path}`, { dispatcher: agent, headers: { authorization: `Bearer ${token}` } }).then(async (res) => ({
          status: res.statusCode,
          retryAfter: res.headers['retry-after'],
          body: await res.body.text(),
        }));
      expect((await get(neighbour, '/api/v1/namespaces', BOOTSTRAP)).status).toBe(200);
      const lookupsBefore = await scrape(server, 'service_auth_token_lookups_total');

      // The neighbour keeps asking while the flood runs, each answer checked.
      let flooding = true;
      const neighbourStatuses: number[] = [];
      const neighbourLoop = (async () => {
        while (flooding) {
          neighbourStatuses.push((await get(neighbour, '/api/v1/namespaces', BOOTSTRAP)).status);
          await new Promise((r) => setTimeout(r, 50));
        }
      })();

      const started = performance.now();
      const statuses = new Map<number, number>();
      let sample429: { retryAfter: unknown; body: string } | null = null;
      let next = 0;
      const worker = async () => {
        while (next < FLOOD) {
          next++;
          const res = await get(flooder, '/api/v1/namespaces', randomBytes(32).toString('base64url'));
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 429) sample429 ??= res;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const elapsed = performance.now() - started;
      flooding = false;
      await neighbourLoop;

      // Every guess answered: the first MAX_FAILURES with 401, the rest refused before any lookup.
      expect(statuses.get(401)).toBe(MAX_FAILURES);
      expect(statuses.get(429)).toBe(FLOOD - MAX_FAILURES);
      expect(sample429).not.toBeNull();
      const retryAfter = Number(sample429!.retryAfter);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(JSON.parse(sample429!.body)).toEqual({ code: GRPC_RESOURCE_EXHAUSTED, message: expect.stringMatching(/too many failed authentication attempts/), details: [] });

      // The neighbour was answered throughout; the store saw the guesses at most MAX_FAILURES times
      // (the neighbour's own lookups — one per second of its 1 s cache at most — besides).
      expect(neighbourStatuses.length).toBeGreaterThan(0);
      expect(new Set(neighbourStatuses)).toEqual(new Set([200]));
      const lookups = (await scrape(server, 'service_auth_token_lookups_total')) - lookupsBefore;
      expect(lookups).toBeLessThanOrEqual(MAX_FAILURES + 1 + neighbourStatuses.length);
      expect(lookups).toBeLessThanOrEqual(MAX_FAILURES + 1 + Math.ceil(elapsed / 1000) + 1);
      expect(await scrape(server, 'service_auth_failures_total', { reason: 'unknown_token' })).toBe(MAX_FAILURES);
      expect(await scrape(server, 'service_auth_rate_limited_total')).toBe(FLOOD - MAX_FAILURES);
      expect(await scrape(server, 'service_auth_tracked_addresses')).toBe(1);

      // A valid token from the limited address is refused too, until the window passes.
      const limitedValid = await get(flooder, '/api/v1/namespaces', BOOTSTRAP);
      expect(limitedValid.status).toBe(429);
      // The fast lane and gRPC share the limiter.
      const lane = await request(`${base}/evaluate/v1/variant`, {
        method: 'POST',
        dispatcher: flooder,
        headers: { authorization: `Bearer ${BOOTSTRAP}`, 'content-type': 'application/json' },
        body: JSON.stringify({ flagKey: 'f', entityId: 'e' }),
      });
      expect(lane.statusCode).toBe(429);
      expect(Number(lane.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(await lane.body.text())).toMatchObject({ code: GRPC_RESOURCE_EXHAUSTED });
      const grpc = new GrpcClient(server.service.grpcPort, BOOTSTRAP);
      try {
        expect((await grpc.fails('flipt.Flipt/ListNamespaces')).code).toBe(GRPC_RESOURCE_EXHAUSTED);
      } finally {
        grpc.close();
      }

      // One warning for the address, not one per refusal.
      const warnings = lines.filter((l) => l.level === 40 && /failed to authenticate too often/.test(l.msg));
      expect(warnings).toHaveLength(1);
      expect(warnings[0].address).toBe('127.0.0.1');
    } finally {
      await server?.stop();
      await flooder.close();
      await neighbour.close();
      await db.cleanup();
    }
  });
});
