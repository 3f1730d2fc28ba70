import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateVariant } from '../../../internal/evaluation';
import type { GitEnvironment, GitRepository } from '../../../internal/git';
import { everyoneGets, testLicence } from '../../support/git-fixtures';
import { startGitRemote, type GitRemote } from '../../support/git-remote';
import { startServer, type TestServer, useServer } from '../../support/server';
import { upload } from '../../support/upload';
import { buildDelivery, SCM_OF, TEST_WEBHOOK_SECRET, type BuiltDelivery, type DeliveryKind } from '../../support/webhook-deliveries';
import { until } from '../../support/wait';

/**
 * POST /api/v2/webhooks/{environment} end to end: a real Git remote on loopback, a real server
 * with Git environments (polling every hour, so only the webhook moves them), signed deliveries.
 */

const licence = testLicence;
const flags = (variant: string) => everyoneGets('production', variant);

/** Environments on one storage, one per provider (prod: GitHub, lab: GitLab, tea: Gitea, bb: Bitbucket, az: Azure); bare has no webhook. */
const gitEnv = (url: string, extra: Record<string, string> = {}): Record<string, string> => ({
  PENNON_STORAGE_FLAGS_REMOTE: url,
  PENNON_STORAGE_FLAGS_POLL_INTERVAL: '1h',
  PENNON_ENVIRONMENTS_PROD_STORAGE: 'flags',
  PENNON_ENVIRONMENTS_PROD_DIRECTORY: 'prod',
  PENNON_ENVIRONMENTS_PROD_DEFAULT: 'true',
  PENNON_ENVIRONMENTS_PROD_SCM_TYPE: 'github',
  PENNON_ENVIRONMENTS_PROD_SCM_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  PENNON_ENVIRONMENTS_LAB_STORAGE: 'flags',
  PENNON_ENVIRONMENTS_LAB_DIRECTORY: 'lab',
  PENNON_ENVIRONMENTS_LAB_SCM_TYPE: 'gitlab',
  PENNON_ENVIRONMENTS_LAB_SCM_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  PENNON_ENVIRONMENTS_TEA_STORAGE: 'flags',
  PENNON_ENVIRONMENTS_TEA_DIRECTORY: 'tea',
  PENNON_ENVIRONMENTS_TEA_SCM_TYPE: 'gitea',
  PENNON_ENVIRONMENTS_TEA_SCM_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  PENNON_ENVIRONMENTS_BB_STORAGE: 'flags',
  PENNON_ENVIRONMENTS_BB_DIRECTORY: 'bb',
  PENNON_ENVIRONMENTS_BB_SCM_TYPE: 'bitbucket',
  PENNON_ENVIRONMENTS_BB_SCM_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  PENNON_ENVIRONMENTS_AZ_STORAGE: 'flags',
  PENNON_ENVIRONMENTS_AZ_DIRECTORY: 'az',
  PENNON_ENVIRONMENTS_AZ_SCM_TYPE: 'azure',
  PENNON_ENVIRONMENTS_AZ_SCM_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  PENNON_ENVIRONMENTS_BARE_STORAGE: 'flags',
  PENNON_ENVIRONMENTS_BARE_DIRECTORY: 'bare',
  ...extra,
});

/** The same flag file in every environment's directory. */
const files = (variant: string) => Object.fromEntries(['prod', 'lab', 'tea', 'bb', 'az', 'bare'].map((d) => [`${d}/production/features.yaml`, flags(variant)]));

const colourOf = (env: GitEnvironment) => {
  const flag = env.compiled('production')?.flags.get('colour');
  return flag ? evaluateVariant(flag, 'user-1', {}).variantKey : undefined;
};

async function deliver(server: TestServer, environment: string, delivery: BuiltDelivery) {
  const res = await fetch(`${server.url}/api/v2/webhooks/${environment}`, { method: 'POST', headers: delivery.headers, body: delivery.body });
  const text = await res.text();
  return { status: res.status, text, body: text === '' ? undefined : (JSON.parse(text) as { code?: number; message?: string; result?: string }) };
}

/** The value of one series in a Prometheus text scrape (0 when absent). */
async function metric(server: TestServer, name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const [series, value] = line.split(' ');
    if (Object.entries(labels).every(([k, v]) => series.includes(`${k}="${v}"`))) return Number(value);
  }
  return 0;
}

/** What the evaluation API answers for the flag in an environment (X-Flipt-Environment). */
async function evaluatedColour(server: TestServer, environment: string): Promise<string> {
  const res = await fetch(`${server.url}/evaluate/v1/variant`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-flipt-environment': environment },
    body: JSON.stringify({ namespaceKey: 'production', flagKey: 'colour', entityId: 'user-1', context: {} }),
  });
  return ((await res.json()) as { variantKey: string }).variantKey;
}

/**
 * Polls the evaluation API until it answers `expected` (the webhook's fetch runs after the 202).
 * The fetch, the commit's files read on a thread and the snapshot's build take well under a second
 * on an idle machine; with the suite's other files loading both cores they took over 5 s, so the
 * bound is 15 s: what is asserted is that the environment follows, not how fast.
 */
async function untilEvaluated(server: TestServer, environment: string, expected: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  let last = '';
  while ((last = await evaluatedColour(server, environment)) !== expected) {
    if (Date.now() > deadline) throw new Error(`environment ${environment} still answers ${last}, not ${expected}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('POST /api/v2/webhooks/{environment} with a licence', () => {
  let remote: GitRemote;
  let prod: GitEnvironment;
  let repository: GitRepository;
  let remoteClosed = false;

  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit(files('blue'));
  });
  afterAll(async () => {
    if (!remoteClosed) await remote?.close();
  });
  const server = useServer(() => gitEnv(remote.url, { PENNON_LICENSE_KEY: licence() }));
  beforeAll(() => {
    prod = server.service.environments!.get('prod')!;
    repository = server.service.environments!.repositories.get('flags')!;
  });

  it('starts with the first commit (fetched at start)', () => {
    expect(colourOf(prod)).toBe('blue');
  });

  it('a signed GitHub push to the tracked branch answers 202 and the environment follows the new commit', async () => {
    const commit = remote.commit(files('green'));
    expect(await evaluatedColour(server, 'prod')).toBe('blue');
    const res = await deliver(server, 'prod', buildDelivery('github'));
    expect(res.status).toBe(202);
    // The evaluation API answers from the new commit within seconds (polling is hourly).
    await untilEvaluated(server, 'prod', 'green');
    expect(prod.snapshot.commit).toBe(commit);
    expect(colourOf(prod)).toBe('green');
    // The fetch updated every environment on the storage: one after the other, each built on a
    // thread of its own, and the sync (its duration observed) is done when the last is.
    await until(async () => (await metric(server, 'service_incoming_webhook_sync_duration_seconds_count', { environment: 'prod', scm: 'github' })) === 1, 'the sync to finish');
    expect(colourOf(server.service.environments!.get('lab')!)).toBe('green');
    expect(await metric(server, 'service_incoming_webhook_requests_total', { environment: 'prod', scm: 'github', result: 'accepted' })).toBe(1);
    expect(await metric(server, 'service_incoming_webhook_fetch_errors_total', { environment: 'prod', scm: 'github' })).toBe(0);
  });

  const CASES: [DeliveryKind, string, string][] = [
    ['github', 'prod', 'ping'],
    ['gitlab', 'lab', 'Note Hook'],
    ['gitea', 'tea', 'issues'],
    ['bitbucket-cloud', 'bb', 'diagnostics:ping'],
    ['bitbucket-server', 'bb', 'pr:opened'],
    ['azure', 'az', 'git.pullrequest.created'],
  ];
  const requests = (environment: string, scm: string, result: string) => metric(server, 'service_incoming_webhook_requests_total', { environment, scm, result });

  for (const [kind, environment, otherEvent] of CASES) {
    describe(`${kind} deliveries to ${environment}`, () => {
      const scm = SCM_OF[kind];

      it('a signed push to the tracked branch answers 202 and the environment follows', async () => {
        const before = await requests(environment, scm, 'accepted');
        const variant = `v${kind.replace('-', '')}`;
        const commit = remote.commit(files(variant));
        expect(await evaluatedColour(server, environment)).not.toBe(variant);
        const res = await deliver(server, environment, buildDelivery(kind));
        expect(res.status).toBe(202);
        await untilEvaluated(server, environment, variant);
        expect(server.service.environments!.get(environment)!.snapshot.commit).toBe(commit);
        expect(await requests(environment, scm, 'accepted')).toBe(before + 1);
      });

      it('a wrong secret answers 401 with no reason in the body, and no fetch', async () => {
        const before = await requests(environment, scm, 'unauthorized');
        const runs = repository.fetchRuns;
        const res = await deliver(server, environment, buildDelivery(kind, { secret: 'not-the-secret' }));
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ code: 16, message: 'request was not authenticated', details: [] });
        expect(repository.fetchRuns).toBe(runs);
        expect(await requests(environment, scm, 'unauthorized')).toBe(before + 1);
      });

      it('a ping or another event answers 200 and fetches nothing', async () => {
        const runs = repository.fetchRuns;
        const res = await deliver(server, environment, buildDelivery(kind, { event: otherEvent }));
        expect(res.status).toBe(200);
        expect(repository.fetchRuns).toBe(runs);
      });

      it('a push to another branch answers 200 and fetches nothing', async () => {
        const before = await requests(environment, scm, 'ignored');
        const runs = repository.fetchRuns;
        const res = await deliver(server, environment, buildDelivery(kind, { branch: 'feature/x' }));
        expect(res.status).toBe(200);
        expect(repository.fetchRuns).toBe(runs);
        expect(await requests(environment, scm, 'ignored')).toBe(before + 1);
      });

      it('a malformed (but authenticated) delivery answers 400 without echoing the reason', async () => {
        const before = await requests(environment, scm, 'invalid');
        const res = await deliver(server, environment, buildDelivery(kind, { body: '{"ref": ' }));
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ code: 3, message: 'malformed webhook delivery', details: [] });
        expect(await requests(environment, scm, 'invalid')).toBe(before + 1);
      });

      it('an authenticated push nested deeper than 64 levels answers 400 and fetches nothing', async () => {
        const runs = repository.fetchRuns;
        const push = buildDelivery(kind).body.toString('utf8').trim();
        const res = await deliver(server, environment, buildDelivery(kind, { body: `{"deep":${'['.repeat(100_000)}${']'.repeat(100_000)},${push.slice(1)}` }));
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ code: 3, message: 'malformed webhook delivery', details: [] });
        expect(repository.fetchRuns).toBe(runs);
      });

      it('a 6 MiB body answers 413 with the error body', async () => {
        const body = Buffer.alloc(6 * 1024 * 1024, 0x20);
        const res = await deliver(server, environment, buildDelivery(kind, { body }));
        expect(res.status).toBe(413);
        expect(res.body).toMatchObject({ code: 8, message: 'request body is too large' });
      });
    });
  }

  it('a client that keeps sending 12 MiB reads the 413 and its JSON (the connection closes after the upload), 20 times out of 20', async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const { response, error } = await upload(server.url, '/api/v2/webhooks/prod', { total: 12 * 1024 * 1024, headers: buildDelivery('github').headers });
      outcomes.push(`${response?.status} ${response?.headers.connection} ${response?.body.toString('utf8')} ${error}`);
    }
    expect(new Set(outcomes)).toEqual(new Set([`413 close ${JSON.stringify({ code: 8, message: 'request body is too large', details: [] })} null`]));
  });

  it('an unknown environment and one without a webhook secret answer 401, counted as unknown/not_found', async () => {
    const before = await metric(server, 'service_incoming_webhook_requests_total', { environment: 'unknown', scm: 'unknown', result: 'not_found' });
    const unknown = await deliver(server, 'nowhere', buildDelivery('github'));
    const bare = await deliver(server, 'bare', buildDelivery('github'));
    const wrong = await deliver(server, 'prod', buildDelivery('github', { secret: 'x' }));
    for (const res of [unknown, bare]) {
      expect(res.status).toBe(401);
      expect(res.text).toBe(wrong.text); // the same response as a failed authentication
    }
    expect(await metric(server, 'service_incoming_webhook_requests_total', { environment: 'unknown', scm: 'unknown', result: 'not_found' })).toBe(before + 2);
  });

  it('needs no API token and is not parsed as JSON first (a non-JSON content type still authenticates)', async () => {
    const delivery = buildDelivery('github', { event: 'ping' });
    const res = await deliver(server, 'prod', { ...delivery, headers: { ...delivery.headers, 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(200);
  });

  it('20 concurrent deliveries make at most two fetches, and the environment ends on the last commit', async () => {
    const runs = repository.fetchRuns;
    const last = remote.commit(files('purple'));
    // The remote holds every request until all 20 deliveries are answered: they all arrive
    // while the first fetch runs, and share the one queued behind it.
    const release = remote.hold();
    try {
      const results = await Promise.all(Array.from({ length: 20 }, () => deliver(server, 'prod', buildDelivery('github'))));
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(202));
    } finally {
      release();
    }
    await until(() => prod.snapshot.commit === last, 'the environment is at the last commit', 15_000);
    await repository.idle(); // the queued fetch, too, has run
    expect(repository.fetchRuns - runs).toBe(2);
    expect(colourOf(prod)).toBe('purple');
  });

  it('a fetch that fails after a 202 is counted in the fetch error counter (last: it stops the remote)', async () => {
    await remote.close();
    remoteClosed = true;
    const res = await deliver(server, 'prod', buildDelivery('github'));
    expect(res.status).toBe(202);
    const deadline = Date.now() + 10_000;
    while ((await metric(server, 'service_incoming_webhook_fetch_errors_total', { environment: 'prod', scm: 'github' })) < 1) {
      if (Date.now() > deadline) throw new Error('no fetch error counted');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(repository.stats.fetchErrors).toBeGreaterThanOrEqual(1);
    expect(colourOf(prod)).toBe('purple'); // the last good snapshot stays in service
  });
});

describe('POST /api/v2/webhooks/{environment} without the licence', () => {
  let remote: GitRemote;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit(files('blue'));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await remote?.close();
  });

  it('is absent (404) with no licence, a licence lacking the feature, an expired or a forged one', async () => {
    const forged = licence().replace(/^./, (c) => (c === 'e' ? 'f' : 'e'));
    const expired = licence(['webhook'], '2020-01-01T00:00:00Z');
    for (const extra of [{}, { PENNON_LICENSE_KEY: licence([]) }, { PENNON_LICENSE_KEY: expired }, { PENNON_LICENSE_KEY: forged }] as Record<string, string>[]) {
      const server = await startServer(gitEnv(remote.url, extra));
      servers.push(server);
      expect(colourOf(server.service.environments!.get('prod')!)).toBe('blue'); // environments still served from Git
      const res = await deliver(server, 'prod', buildDelivery('github'));
      expect(res.status).toBe(404);
    }
  });

  it('answers 503 once the server is draining', async () => {
    const server = await startServer(gitEnv(remote.url, { PENNON_LICENSE_KEY: licence() }));
    servers.push(server);
    const delivery = buildDelivery('github');
    const stopping = server.service.stop(); // health turns draining at once
    const res = await server.service.app.inject({ method: 'POST', url: '/api/v2/webhooks/prod', headers: delivery.headers, payload: delivery.body });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ code: 14, message: 'the service is shutting down', details: [] });
    await stopping;
  });

  it('needs no API token when authentication is required, and its metrics follow metrics.namespace', async () => {
    const server = await startServer(
      gitEnv(remote.url, {
        PENNON_LICENSE_KEY: licence(),
        PENNON_AUTHENTICATION_REQUIRED: 'true',
        PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
        PENNON_METRICS_NAMESPACE: 'flipt',
      }),
    );
    servers.push(server);
    expect((await server.api.get('/api/v1/namespaces')).status).toBe(401); // the API does want a token
    const res = await deliver(server, 'prod', buildDelivery('github', { event: 'ping' }));
    expect(res.status).toBe(200);
    expect(await metric(server, 'flipt_incoming_webhook_requests_total', { environment: 'prod', scm: 'github', result: 'ignored' })).toBe(1);
  });

  it('is served with the licence given as license.file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pennon-licence-'));
    const file = join(dir, 'licence.txt');
    writeFileSync(file, `${licence()}\n`);
    const server = await startServer(gitEnv(remote.url, { PENNON_LICENSE_FILE: file }));
    servers.push(server);
    const res = await deliver(server, 'prod', buildDelivery('github', { event: 'ping' }));
    expect(res.status).toBe(200);
    rmSync(dir, { recursive: true, force: true });
  });
});
