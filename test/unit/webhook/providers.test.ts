import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../internal/core/json-depth';
import { classifyDelivery, detectProvider, type Delivery } from '../../../internal/webhook/providers';
import {
  AUTH_HEADER,
  buildDelivery,
  DELIVERY_KINDS,
  fixture,
  FIXTURE_OF,
  hmacHex,
  TEST_WEBHOOK_SECRET,
  type BuiltDelivery,
  type DeliveryKind,
} from '../../support/webhook-deliveries';

/**
 * Every provider over its real payload (test/fixtures/webhook-payloads), signed for this test's
 * secret and branch: good → accepted with the branch; bad or missing authentication →
 * unauthorized; ping or other event, tag push, untracked branch → ignored; malformed → invalid.
 */

const SECRET = 'a-secret-for-this-test-only-7f3c';
const BRANCH = 'release/flags-e2e';

const classify = (d: BuiltDelivery, over: Partial<Delivery> = {}) =>
  classifyDelivery({ scm: d.scm, secret: SECRET, headers: d.headers, body: d.body, tracked: [BRANCH], ...over });

/** A non-push event each provider sends (GitHub's and Bitbucket Server's pings among them). */
const OTHER_EVENTS: Record<DeliveryKind, string[]> = {
  github: ['ping', 'pull_request', 'create'],
  gitlab: ['Merge Request Hook', 'Pipeline Hook'],
  gitea: ['pull_request', 'create', 'delete'],
  'bitbucket-cloud': ['pullrequest:fulfilled', 'repo:updated'],
  'bitbucket-server': ['diagnostics:ping', 'pr:merged'],
  azure: ['git.pullrequest.merged', 'build.complete'],
};

describe('the fixtures', () => {
  it('are unchanged byte for byte: their HMACs are the pinned ones', () => {
    const published: Record<string, string> = {
      'github-push.json': 'd749b03d407879b9103b4a30603f29734eb161498bf30a8a85bf891989f081ea',
      'github-ping.json': '4a7e42347e1aa9ec4e5985cc8c408c05af4714dd155091446d89966122f1ad85',
      'github-tag-push.json': '40fc608e446c11442c8632e2e8d935a3239731b0ddb552eb4aee8b98584a5cab',
      'gitea-push.json': '1fe149850c1f9f799d53c2dcb976c683099ccf2dfa16625be20723fc5e2be611',
      'bitbucket-cloud-push.json': '76874d2e0625c8cf772785cfbe1301a348cc9dcb02847d4d81522e6f973cd079',
      'bitbucket-server-refs-changed.json': 'd9dd7f15c7217d63e75637f1acc76e5d908199dc7fb73cf020981ee273ff2850',
    };
    for (const [file, hex] of Object.entries(published)) expect(hmacHex(TEST_WEBHOOK_SECRET, fixture(file)), file).toBe(hex);
  });

  it('headers computed once and pinned authenticate: a GitHub signature, an Azure Basic header', () => {
    const github = classifyDelivery({
      scm: 'github',
      secret: TEST_WEBHOOK_SECRET,
      headers: { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': 'sha256=d749b03d407879b9103b4a30603f29734eb161498bf30a8a85bf891989f081ea' },
      body: fixture('github-push.json'),
      tracked: 'main',
    });
    expect(github).toMatchObject({ result: 'accepted', branch: 'main' });
    const azure = classifyDelivery({
      scm: 'azure',
      secret: TEST_WEBHOOK_SECRET,
      headers: { Authorization: 'Basic ZmxpcHQ6ZmxpcHQtd2ViaG9vay10ZXN0LXNlY3JldA==' },
      body: fixture('azure-push.json'),
      tracked: 'main',
    });
    expect(azure).toMatchObject({ result: 'accepted', branch: 'main', event: 'git.push' });
  });
});

describe.each(DELIVERY_KINDS)('%s', (kind) => {
  const scm = buildDelivery(kind).scm;

  it('the fixture as sent (branch main, the test secret) is accepted', () => {
    const d = buildDelivery(kind);
    expect(d.body.equals(fixture(FIXTURE_OF[kind]))).toBe(true);
    expect(classify(d, { secret: TEST_WEBHOOK_SECRET, tracked: ['main'] })).toMatchObject({ result: 'accepted', scm, branch: 'main', branches: ['main'] });
  });

  it("a push to the tracked branch, signed with the environment's secret → accepted with the branch", () => {
    const r = classify(buildDelivery(kind, { branch: BRANCH, secret: SECRET }));
    expect(r).toEqual({ result: 'accepted', scm, event: expect.any(String), branch: BRANCH, branches: [BRANCH], reason: `push to tracked branch ${BRANCH}` });
  });

  it('a branch environment (flipt/<env>/*) matches by prefix', () => {
    const r = classify(buildDelivery(kind, { branch: 'flipt/production/new-checkout', secret: SECRET }), { tracked: [BRANCH, 'flipt/production/*'] });
    expect(r).toMatchObject({ result: 'accepted', branch: 'flipt/production/new-checkout' });
  });

  it('the wrong secret → unauthorized', () => {
    const r = classify(buildDelivery(kind, { branch: BRANCH, secret: 'not-the-secret' }));
    expect(r).toMatchObject({ result: 'unauthorized', scm });
    expect(r.event).toBeUndefined();
    expect(r.branch).toBeUndefined();
  });

  it('the authentication header missing → unauthorized', () => {
    const d = buildDelivery(kind, { branch: BRANCH, secret: SECRET });
    delete d.headers[AUTH_HEADER[kind]];
    expect(classify(d)).toMatchObject({ result: 'unauthorized', reason: expect.stringMatching(/^no (X-|Authorization)/) });
  });

  it('one byte of the body changed after signing → unauthorized (except where nothing is signed)', () => {
    const d = buildDelivery(kind, { branch: BRANCH, secret: SECRET });
    const body = Buffer.from(d.body);
    body[body.indexOf('flags-e2e')] = 'F'.charCodeAt(0);
    // GitLab and Azure authenticate with the secret itself, not a signature of the body: a
    // changed body is still authentic, and here it names an untracked branch.
    const expected = kind === 'gitlab' || kind === 'azure' ? 'ignored' : 'unauthorized';
    expect(classify({ ...d, body })).toMatchObject({ result: expected });
  });

  it('the secret from another environment, or an empty configured secret → unauthorized', () => {
    const d = buildDelivery(kind, { branch: BRANCH, secret: '' });
    expect(classify(d, { secret: '' })).toMatchObject({ result: 'unauthorized', reason: 'no webhook secret is configured' });
    expect(classify(buildDelivery(kind, { branch: BRANCH, secret: SECRET }), { secret: `${SECRET}x` })).toMatchObject({ result: 'unauthorized' });
  });

  it('an untracked branch → ignored, with the branch named', () => {
    const r = classify(buildDelivery(kind, { branch: 'feature/x', secret: SECRET }));
    expect(r).toMatchObject({ result: 'ignored', scm, branch: 'feature/x', branches: ['feature/x'], reason: 'untracked branch feature/x' });
  });

  it('a tag push → ignored (even a tag named like the tracked branch)', () => {
    const d =
      kind === 'github'
        ? { ...buildDelivery(kind, { secret: SECRET, body: fixture('github-tag-push.json') }) }
        : buildDelivery(kind, { ref: `refs/tags/${BRANCH}`, secret: SECRET });
    const r = classify(d, { tracked: [BRANCH, 'main', 'v1.4.0'] });
    expect(r).toMatchObject({ result: 'ignored', reason: expect.stringMatching(/^tag push/) });
    expect(r.branch).toBeUndefined();
  });

  it.each(OTHER_EVENTS[kind])('event %s (ping or not a push) → ignored', (event) => {
    const body = kind === 'github' && event === 'ping' ? fixture('github-ping.json') : undefined;
    const r = classify(buildDelivery(kind, { branch: BRANCH, secret: SECRET, event, body }));
    expect(r).toMatchObject({ result: 'ignored', event, reason: event.endsWith('ping') ? 'ping' : `event "${event}" is not a push` });
  });

  it('a malformed body, correctly authenticated → invalid', () => {
    for (const body of ['{"ref": "refs/heads/main", ', '', 'null', '[]', '"refs/heads/main"']) {
      const r = classify(buildDelivery(kind, { secret: SECRET, body }));
      expect(r, JSON.stringify(body)).toMatchObject({ result: 'invalid', reason: expect.stringMatching(/not valid JSON|not a JSON object/) });
    }
  });

  it('a push nested deeper than the JSON depth limit, correctly authenticated → invalid, naming the limit', () => {
    const push = buildDelivery(kind, { branch: BRANCH, secret: SECRET }).body.toString('utf8').trim();
    for (const depth of [MAX_JSON_DEPTH, 100_000]) {
      const body = `{"deep":${'['.repeat(depth)}${']'.repeat(depth)},${push.slice(1)}`;
      // One level for the payload itself: `deep` reaches the limit plus one.
      expect(classify(buildDelivery(kind, { secret: SECRET, body })), String(depth)).toMatchObject({
        result: 'invalid',
        reason: `the payload nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
      });
    }
    const body = `{"deep":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)},${push.slice(1)}`;
    expect(classify(buildDelivery(kind, { secret: SECRET, body }))).toMatchObject({ result: 'accepted', branch: BRANCH });
  });

  it('a well-formed push without its refs → invalid', () => {
    const r = classify(buildDelivery(kind, { secret: SECRET, body: kind === 'azure' ? '{"eventType":"git.push","resource":{}}' : '{"object_kind":"push"}' }));
    expect(r).toMatchObject({ result: 'invalid' });
  });

  it('a malformed body without authentication → unauthorized, never invalid (authentication comes first)', () => {
    const d = buildDelivery(kind, { secret: 'wrong', body: '{not json' });
    expect(classify(d)).toMatchObject({ result: 'unauthorized' });
  });

  it('header names in any case; Node-style arrays of one value', () => {
    const d = buildDelivery(kind, { branch: BRANCH, secret: SECRET });
    const upper = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect(classify(d, { headers: upper })).toMatchObject({ result: 'accepted', branch: BRANCH });
  });

  it('the authentication header sent twice → unauthorized', () => {
    const d = buildDelivery(kind, { branch: BRANCH, secret: SECRET });
    const h = d.headers[AUTH_HEADER[kind]];
    expect(classify(d, { headers: { ...d.headers, [AUTH_HEADER[kind]]: [h, h] } })).toMatchObject({ result: 'unauthorized' });
  });

  it('detectProvider recognises the delivery', () => {
    expect(detectProvider(buildDelivery(kind).headers)).toBe(scm);
  });

  it("delivered to an environment of another scm.type → unauthorized, and the log says what it looks like", () => {
    const d = buildDelivery(kind, { branch: BRANCH, secret: SECRET });
    // (Not github for a Gitea delivery: Gitea also sends GitHub's signature header, and passes.)
    const other = scm === 'github' || scm === 'gitea' ? 'gitlab' : 'github';
    const r = classify(d, { scm: other });
    expect(r).toMatchObject({ result: 'unauthorized', scm: other, reason: expect.stringContaining(`looks like ${scm}'s, but this environment's scm.type is ${other}`) });
  });
});
