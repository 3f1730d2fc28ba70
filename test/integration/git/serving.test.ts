import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyoneGets } from '../../support/git-fixtures';
import { startGitRemote, type GitRemote } from '../../support/git-remote';
import { ApiClient, expectStatus, useServer } from '../../support/server';

/**
 * With Git environments configured, flag state comes from Git: every evaluation surface and
 * every management read answer from the environment named by X-Flipt-Environment (the default
 * one without it), writes get Flipt's read-only error, tokens stay in the database. A real Git
 * remote on loopback; polling every hour, so only `requestSync` (what the webhook calls) moves it.
 */

const production = (colour: string, threshold = 100) => `version: "1.6"
namespace:
  key: shop
  name: Shop
  description: The shop's flags
flags:
  - key: colour
    name: Colour
    type: VARIANT_FLAG_TYPE
    enabled: true
    variants:
      - key: ${colour}
        name: ${colour}
        attachment:
          hex: "#${colour === 'blue' ? '0000ff' : '00ff00'}"
      - key: grey
    rules:
      - segment: members
        distributions:
          - variant: ${colour}
            rollout: 100
      - segment: everyone
        distributions:
          - variant: grey
            rollout: 100
  - key: checkout
    name: New checkout
    type: BOOLEAN_FLAG_TYPE
    enabled: false
    rollouts:
      - threshold:
          percentage: ${threshold}
          value: true
segments:
  - key: members
    name: Members
    match_type: ALL_MATCH_TYPE
    constraints:
      - type: STRING_COMPARISON_TYPE
        property: plan
        operator: eq
        value: member
  - key: everyone
    name: Everyone
    match_type: ALL_MATCH_TYPE
`;

const staging = everyoneGets('shop', 'staging-red');

const gitEnv = (url: string, extra: Record<string, string> = {}): Record<string, string> => ({
  PENNON_STORAGE_FLAGS_REMOTE: url,
  PENNON_STORAGE_FLAGS_POLL_INTERVAL: '1h',
  PENNON_ENVIRONMENTS_PRODUCTION_STORAGE: 'flags',
  PENNON_ENVIRONMENTS_PRODUCTION_DIRECTORY: 'prod',
  PENNON_ENVIRONMENTS_PRODUCTION_DEFAULT: 'true',
  PENNON_ENVIRONMENTS_PRODUCTION_SCM_TYPE: 'github',
  PENNON_ENVIRONMENTS_STAGING_STORAGE: 'flags',
  PENNON_ENVIRONMENTS_STAGING_DIRECTORY: 'staging',
  ...extra,
});

const member = { namespaceKey: 'shop', flagKey: 'colour', entityId: 'user-1', context: { plan: 'member' } };

describe('serving flags from Git environments', () => {
  let remote: GitRemote;
  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit({ 'prod/shop/features.yaml': production('blue'), 'staging/shop/features.yaml': staging });
  });
  afterAll(async () => {
    await remote?.close();
  });
  const server = useServer(() => gitEnv(remote.url));
  const api = server.api;
  const stagingApi = api.withHeaders({ 'X-Flipt-Environment': 'staging' });

  it('evaluates from the default environment without the header (fast lane, Fastify route, batch, legacy)', async () => {
    const variant = expectStatus(await api.post('/evaluate/v1/variant', member), 200);
    expect(variant).toMatchObject({ match: true, variantKey: 'blue', reason: 'MATCH_EVALUATION_REASON', segmentKeys: ['members'], variantAttachment: '{"hex":"#0000ff"}' });
    // `?pretty` sends the request through Fastify instead of the fast lane: the same answer.
    expect(expectStatus(await api.post('/evaluate/v1/variant?pretty=false', member), 200)).toMatchObject({ variantKey: 'blue' });
    const boolean = expectStatus(await api.post('/evaluate/v1/boolean', { ...member, flagKey: 'checkout' }), 200);
    expect(boolean).toMatchObject({ enabled: true, reason: 'MATCH_EVALUATION_REASON' });
    const batch = expectStatus(
      await api.post('/evaluate/v1/batch', { requests: [member, { ...member, context: {} }, { ...member, flagKey: 'missing' }] }),
      200,
    );
    expect(batch.responses.map((r: { type: string }) => r.type)).toEqual(['VARIANT_EVALUATION_RESPONSE_TYPE', 'VARIANT_EVALUATION_RESPONSE_TYPE', 'ERROR_EVALUATION_RESPONSE_TYPE']);
    expect(batch.responses[1].variantResponse.variantKey).toBe('grey');
    const legacy = expectStatus(await api.post('/api/v1/namespaces/shop/evaluate', { flagKey: 'colour', entityId: 'user-1', context: { plan: 'member' } }), 200);
    expect(legacy).toMatchObject({ match: true, value: 'blue', segmentKeys: ['members'] });
  });

  it('X-Flipt-Environment picks the environment on every evaluation surface', async () => {
    expect(expectStatus(await stagingApi.post('/evaluate/v1/variant', member), 200).variantKey).toBe('staging-red');
    expect(expectStatus(await stagingApi.post('/evaluate/v1/variant?pretty=false', member), 200).variantKey).toBe('staging-red');
    // staging has no `checkout` flag
    const missing = await stagingApi.post('/evaluate/v1/boolean', { ...member, flagKey: 'checkout' });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('flag "shop/checkout" not found');
    // OFREP takes the namespace from X-Flipt-Namespace, as Flipt does.
    const ofrep = expectStatus(await stagingApi.withHeaders({ 'X-Flipt-Namespace': 'shop' }).post('/ofrep/v1/evaluate/flags/colour', { context: { targetingKey: 'user-1' } }), 200);
    expect(ofrep).toMatchObject({ key: 'colour', variant: 'staging-red' });
    const prodOfrep = expectStatus(await api.withHeaders({ 'X-Flipt-Namespace': 'shop' }).post('/ofrep/v1/evaluate/flags', { context: { targetingKey: 'user-1', plan: 'member' } }), 200);
    expect(prodOfrep.flags.map((f: { key: string; variant: string }) => `${f.key}=${f.variant}`)).toEqual(['colour=blue', 'checkout=true']);
    const explicit = api.withHeaders({ 'X-Flipt-Environment': 'production' });
    expect(expectStatus(await explicit.post('/evaluate/v1/variant', member), 200).variantKey).toBe('blue');
  });

  it('an unknown environment is a 404 naming it, on the fast lane and on Fastify routes alike', async () => {
    const nowhere = api.withHeaders({ 'X-Flipt-Environment': 'nowhere' });
    for (const res of [await nowhere.post('/evaluate/v1/variant', member), await nowhere.get('/api/v1/namespaces/shop/flags'), await nowhere.post('/evaluate/v1/batch', { requests: [member] })]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 5, message: 'environment "nowhere" not found' });
    }
  });

  it('the client snapshot (flipt-client-js) comes from the environment, with an ETag per environment and commit', async () => {
    const prod = await api.get('/internal/v1/evaluation/snapshot/namespace/shop');
    const stage = await stagingApi.get('/internal/v1/evaluation/snapshot/namespace/shop');
    expect(prod.status).toBe(200);
    expect(prod.body.flags.map((f: { key: string }) => f.key)).toEqual(['colour', 'checkout']);
    expect(stage.body.flags.map((f: { key: string }) => f.key)).toEqual(['colour']);
    expect(prod.headers.get('etag')).toMatch(/^[0-9a-f]{40}$/);
    expect(stage.headers.get('etag')).not.toBe(prod.headers.get('etag'));
    const again = await api.request('GET', '/internal/v1/evaluation/snapshot/namespace/shop', undefined, { 'if-none-match': prod.headers.get('etag')! });
    expect(again.status).toBe(304);
  });

  it('management reads list and get every kind of object, with paging', async () => {
    const namespaces = expectStatus(await api.get('/api/v1/namespaces'), 200);
    expect(namespaces.namespaces.map((n: { key: string }) => n.key).sort()).toEqual(['default', 'shop']);
    expect(expectStatus(await api.get('/api/v1/namespaces/shop'), 200)).toMatchObject({ key: 'shop', name: 'Shop', description: "The shop's flags" });
    const page1 = expectStatus(await api.get('/api/v1/namespaces/shop/flags?limit=1'), 200);
    expect(page1.flags.map((f: { key: string }) => f.key)).toEqual(['colour']);
    expect(page1.totalCount).toBe(2);
    const page2 = expectStatus(await api.get(`/api/v1/namespaces/shop/flags?limit=1&pageToken=${page1.nextPageToken}`), 200);
    expect(page2.flags.map((f: { key: string }) => f.key)).toEqual(['checkout']);
    expect(page2.nextPageToken).toBe('');
    const colour = expectStatus(await api.get('/api/v1/namespaces/shop/flags/colour'), 200);
    expect(colour.variants.map((v: { key: string }) => v.key)).toEqual(['blue', 'grey']);
    const segment = expectStatus(await api.get('/api/v1/namespaces/shop/segments/members'), 200);
    expect(segment.constraints[0]).toMatchObject({ property: 'plan', operator: 'eq', value: 'member' });
    const rules = expectStatus(await api.get('/api/v1/namespaces/shop/flags/colour/rules'), 200);
    expect(rules.rules.map((r: { segmentKey: string; rank: number }) => `${r.rank}:${r.segmentKey}`)).toEqual(['1:members', '2:everyone']);
    // Ids are safe in a path: a rule fetched by the id the list gave.
    const rule = expectStatus(await api.get(`/api/v1/namespaces/shop/flags/colour/rules/${rules.rules[1].id}`), 200);
    expect(rule.distributions[0].variantId).toBe(colour.variants[1].id);
    const rollouts = expectStatus(await api.get('/api/v1/namespaces/shop/flags/checkout/rollouts'), 200);
    expect(rollouts.rules[0]).toMatchObject({ type: 'THRESHOLD_ROLLOUT_TYPE', threshold: { percentage: 100, value: true } });
    expect((await api.get('/api/v1/namespaces/shop/flags/nope')).body.message).toBe('flag "shop/nope" not found');
    // Family A reads the same environment, and the header works for management too.
    expect(expectStatus(await stagingApi.get('/api/v1/flags?namespaceKey=shop'), 200).flags.map((f: { key: string }) => f.key)).toEqual(['colour']);
  });

  it('writes answer Flipt read-only error, after validation, and change nothing', async () => {
    const created = await api.post('/api/v1/namespaces/shop/flags', { key: 'new-flag', name: 'New', type: 'BOOLEAN_FLAG_TYPE' });
    expect(created.status).toBe(500);
    expect(created.body).toMatchObject({ code: 13, message: 'modification is not allowed in read-only mode' });
    const invalid = await api.post('/api/v1/namespaces/shop/flags', { key: '', name: 'New' });
    expect(invalid.status).toBe(400);
    expect((await api.delete('/api/v1/namespaces/shop/flags/colour')).status).toBe(500);
    expect((await api.put('/api/v1/namespaces/shop', { name: 'Renamed' })).status).toBe(500);
    // Pennon's bulk import route too, into the database it does not read flags from.
    for (const path of ['/api/v1/import?drop=true', '/api/v1/namespaces/shop/import']) {
      const imported = await api.request('POST', path, 'flags:\n- {key: imported, name: Imported}\n', { 'content-type': 'application/yaml' });
      expect([imported.status, imported.body], path).toEqual([500, { code: 13, message: 'modification is not allowed in read-only mode', details: [] }]);
    }
    expect(expectStatus(await api.get('/api/v1/namespaces/shop/flags'), 200).totalCount).toBe(2);
  });

  it('/meta/info says the storage is Git and read-only; /api/v2/environments lists them, the default first', async () => {
    expect(expectStatus(await api.get('/meta/info'), 200).storage).toEqual({ type: 'git', readOnly: true });
    const { environments } = expectStatus(await api.get('/api/v2/environments'), 200);
    expect(environments).toEqual([
      { key: 'production', name: 'production', default: true, configuration: { ref: 'main', directory: 'prod', remote: remote.url, scm: 'SCM_GITHUB' } },
      { key: 'staging', name: 'staging', default: false, configuration: { ref: 'main', directory: 'staging', remote: remote.url } },
    ]);
  });

  it('a new commit changes the answers once synced; evaluations never wait for the fetch', async () => {
    remote.commit({ 'prod/shop/features.yaml': production('green', 0) });
    const release = remote.hold(); // the fetch stays in flight, held at the remote, while we evaluate
    let synced = false;
    const sync = server.service.environments!.repositories.get('flags')!.requestSync().finally(() => (synced = true));
    expect(expectStatus(await api.post('/evaluate/v1/variant', member), 200).variantKey).toBe('blue');
    expect(synced).toBe(false); // answered while the fetch had not finished
    release();
    await sync;
    expect(expectStatus(await api.post('/evaluate/v1/variant', member), 200).variantKey).toBe('green');
    expect(expectStatus(await api.post('/evaluate/v1/boolean', { ...member, flagKey: 'checkout' }), 200).enabled).toBe(false);
    const colour = expectStatus(await api.get('/api/v1/namespaces/shop/flags/colour'), 200);
    expect(colour.variants[0].key).toBe('green');
  });

  it('an invalid commit keeps the last good snapshot and is counted in git_sync_errors_total', async () => {
    const count = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('service_git_sync_errors_total{') && l.includes('environment="production"') && l.includes('stage="build"'));
      return line ? Number(line.split(' ')[1]) : 0;
    };
    const before = await count();
    remote.commit({ 'prod/shop/features.yaml': 'version: "1.6"\nnamespace: shop\nflags:\n  - key: colour\n    nme: typo\n' });
    await server.service.environments!.repositories.get('flags')!.requestSync();
    expect(await count()).toBe(before + 1);
    expect(expectStatus(await api.post('/evaluate/v1/variant', member), 200).variantKey).toBe('green');
  });
});

describe('Git environments with authentication required', () => {
  let remote: GitRemote;
  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit({ 'prod/shop/features.yaml': production('blue') });
  });
  afterAll(async () => {
    await remote?.close();
  });
  const server = useServer(() =>
    gitEnv(remote.url, { PENNON_AUTHENTICATION_REQUIRED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'boot-secret' }),
  );

  it('tokens still live in the database: created through the API, they open the Git-backed surfaces', async () => {
    const anonymous = new ApiClient(server.url);
    expect((await anonymous.post('/evaluate/v1/variant', member)).status).toBe(401);
    const admin = anonymous.withHeaders({ authorization: 'Bearer boot-secret' });
    const token = expectStatus(await admin.post('/auth/v1/method/token', { name: 'ci', description: 'from a test' }), 200);
    const client = anonymous.withHeaders({ authorization: `Bearer ${token.clientToken}` });
    expect(expectStatus(await client.post('/evaluate/v1/variant', member), 200).variantKey).toBe('blue');
    expect(expectStatus(await client.get('/api/v1/namespaces/shop/flags'), 200).totalCount).toBe(2);
    expect(expectStatus(await client.get('/auth/v1/tokens'), 200).authentications.length).toBe(2);
  });
});
