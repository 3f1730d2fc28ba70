import { describe, expect, it } from 'vitest';
import { classifyDelivery, detectProvider, isTracked, MAX_WEBHOOK_BODY_BYTES, type Delivery } from '../../../internal/webhook/providers';
import { buildDelivery, fixture, hmacHex } from '../../support/webhook-deliveries';

/** Provider details beyond the common matrix (providers.test.ts): headers, encodings, multi-ref pushes. */

const SECRET = 's3cret-for-details';
const run = (over: Partial<Delivery> & Pick<Delivery, 'scm' | 'headers' | 'body'>) => classifyDelivery({ secret: SECRET, tracked: ['main'], ...over });
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const form = (payload: string) => Buffer.from(new URLSearchParams({ payload }).toString());

describe('GitHub', () => {
  const body = fixture('github-push.json');
  const headers = (signature: string, extra: Record<string, string> = {}) => ({ 'x-github-event': 'push', 'x-hub-signature-256': signature, ...extra });

  it('takes only "sha256=<64 hex>": no prefix, sha1=, short, upper-case prefix are refused; upper-case hex is fine', () => {
    const hex = hmacHex(SECRET, body);
    expect(run({ scm: 'github', headers: headers(`sha256=${hex}`), body }).result).toBe('accepted');
    expect(run({ scm: 'github', headers: headers(`sha256=${hex.toUpperCase()}`), body }).result).toBe('accepted');
    for (const bad of [hex, `sha1=${hex}`, `sha256=${hex.slice(2)}`, `SHA256=${hex}`, `sha256=${hex}00`, 'sha256=', '']) {
      expect(run({ scm: 'github', headers: headers(bad), body }), bad).toMatchObject({ result: 'unauthorized' });
    }
  });

  it("never accepts the legacy SHA-1 X-Hub-Signature on its own", () => {
    expect(run({ scm: 'github', headers: { 'x-github-event': 'push', 'x-hub-signature': `sha1=${'0'.repeat(40)}` }, body })).toMatchObject({
      result: 'unauthorized',
      reason: expect.stringMatching(/^no X-Hub-Signature-256 header/),
    });
  });

  it('form-encoded deliveries (payload=<JSON>): the signature covers the form bytes', () => {
    const formBody = form(body.toString('utf8'));
    const ct = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(run({ scm: 'github', headers: headers(`sha256=${hmacHex(SECRET, formBody)}`, ct), body: formBody })).toMatchObject({ result: 'accepted', branch: 'main' });
    // Signed over the JSON inside instead: not what GitHub does.
    expect(run({ scm: 'github', headers: headers(`sha256=${hmacHex(SECRET, body)}`, ct), body: formBody }).result).toBe('unauthorized');
    const empty = Buffer.from('other=1');
    expect(run({ scm: 'github', headers: headers(`sha256=${hmacHex(SECRET, empty)}`, ct), body: empty })).toMatchObject({ result: 'invalid', reason: expect.stringMatching(/without a "payload" field/) });
  });

  it('no X-GitHub-Event on an authentic delivery → invalid', () => {
    expect(run({ scm: 'github', headers: { 'x-hub-signature-256': `sha256=${hmacHex(SECRET, body)}` }, body })).toMatchObject({ result: 'invalid', reason: 'no X-GitHub-Event header' });
  });

  it('a deleted tracked branch is accepted (the fetch prunes it); refs outside heads/tags are ignored', () => {
    const deleted = json({ ref: 'refs/heads/main', deleted: true, after: '0'.repeat(40) });
    expect(run({ scm: 'github', headers: headers(`sha256=${hmacHex(SECRET, deleted)}`), body: deleted })).toMatchObject({ result: 'accepted', branch: 'main' });
    for (const ref of ['refs/notes/commits', 'refs/heads/', 'main']) {
      const b = json({ ref });
      expect(run({ scm: 'github', headers: headers(`sha256=${hmacHex(SECRET, b)}`), body: b }), ref).toMatchObject({ result: 'ignored', reason: `not a branch (${ref})` });
    }
    const noRef = json({ ref: 7 });
    expect(run({ scm: 'github', headers: headers(`sha256=${hmacHex(SECRET, noRef)}`), body: noRef })).toMatchObject({ result: 'invalid', reason: 'the push payload has no "ref"' });
  });

  it('a UTF-8 byte-order mark before the JSON is allowed', () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    expect(run({ scm: 'github', headers: headers(`sha256=${hmacHex(SECRET, bom)}`), body: bom }).result).toBe('accepted');
  });
});

describe('GitLab', () => {
  const body = fixture('gitlab-push.json');

  it('compares the token exactly: other lengths, a prefix, surrounding spaces are refused', () => {
    for (const token of [`${SECRET} `, SECRET.slice(0, -1), `${SECRET}${SECRET}`, SECRET.toUpperCase(), '']) {
      expect(run({ scm: 'gitlab', headers: { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': token }, body }), token).toMatchObject({ result: 'unauthorized' });
    }
  });

  it('System Hook: a push is a push; other kinds are ignored', () => {
    const headers = { 'x-gitlab-event': 'System Hook', 'x-gitlab-token': SECRET };
    expect(run({ scm: 'gitlab', headers, body })).toMatchObject({ result: 'accepted', event: 'System Hook', branch: 'main' });
    expect(run({ scm: 'gitlab', headers, body: json({ object_kind: 'merge_request' }) })).toMatchObject({ result: 'ignored', reason: expect.stringMatching(/is not a push/) });
    expect(run({ scm: 'gitlab', headers, body: json({ object_kind: 'tag_push', ref: 'refs/tags/v1' }) })).toMatchObject({ result: 'ignored', reason: 'tag push' });
  });

  it('Tag Push Hook is ignored without reading the body; no X-Gitlab-Event → invalid', () => {
    expect(run({ scm: 'gitlab', headers: { 'x-gitlab-event': 'Tag Push Hook', 'x-gitlab-token': SECRET }, body: Buffer.from('{') })).toMatchObject({ result: 'ignored', reason: 'tag push' });
    expect(run({ scm: 'gitlab', headers: { 'x-gitlab-token': SECRET }, body })).toMatchObject({ result: 'invalid', reason: 'no X-Gitlab-Event header' });
  });
});

describe('Gitea', () => {
  const body = fixture('gitea-push.json');
  const hex = hmacHex(SECRET, body);

  it('the signature is bare hex: with "sha256=" (strict parsing) it is refused', () => {
    expect(run({ scm: 'gitea', headers: { 'x-gitea-event': 'push', 'x-gitea-signature': hex }, body }).result).toBe('accepted');
    expect(run({ scm: 'gitea', headers: { 'x-gitea-event': 'push', 'x-gitea-signature': `sha256=${hex}` }, body })).toMatchObject({
      result: 'unauthorized',
      reason: expect.stringMatching(/no "sha256=" prefix/),
    });
  });

  it("GitHub's headers alone do not authenticate a gitea environment", () => {
    expect(run({ scm: 'gitea', headers: { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hex}` }, body })).toMatchObject({ result: 'unauthorized', reason: expect.stringMatching(/^no X-Gitea-Signature header/) });
  });

  it('Forgejo and Gogs event headers are read when X-Gitea-Event is absent', () => {
    expect(run({ scm: 'gitea', headers: { 'x-forgejo-event': 'push', 'x-gitea-signature': hex }, body }).result).toBe('accepted');
    expect(run({ scm: 'gitea', headers: { 'x-gogs-event': 'push', 'x-gitea-signature': hex }, body }).result).toBe('accepted');
    expect(run({ scm: 'gitea', headers: { 'x-gitea-signature': hex }, body })).toMatchObject({ result: 'invalid', reason: 'no X-Gitea-Event header' });
  });

  it("form-encoded: Gitea signs the JSON inside payload=, not the form bytes (its deliver.go)", () => {
    const formBody = form(body.toString('utf8'));
    const ct = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };
    expect(run({ scm: 'gitea', headers: { 'x-gitea-event': 'push', 'x-gitea-signature': hex, ...ct }, body: formBody })).toMatchObject({ result: 'accepted', branch: 'main' });
    expect(run({ scm: 'gitea', headers: { 'x-gitea-event': 'push', 'x-gitea-signature': hmacHex(SECRET, formBody), ...ct }, body: formBody }).result).toBe('unauthorized');
    expect(run({ scm: 'gitea', headers: { 'x-gitea-event': 'push', 'x-gitea-signature': hex, ...ct }, body: Buffer.from('x=1') }).result).toBe('unauthorized');
  });

  it("a Gitea hook also authenticates as github (Gitea sends GitHub's signature header too)", () => {
    const d = buildDelivery('gitea', { secret: SECRET });
    expect(run({ scm: 'github', headers: d.headers, body: d.body })).toMatchObject({ result: 'accepted', scm: 'github', branch: 'main' });
  });
});

describe('Bitbucket', () => {
  const sign = (b: Buffer, event: string) => ({ 'x-event-key': event, 'x-hub-signature': `sha256=${hmacHex(SECRET, b)}` });

  it('Cloud: several changes — one tracked branch among them is enough; tags and untracked branches are listed', () => {
    const b = json({
      push: {
        changes: [
          { new: { type: 'tag', name: 'v2' }, old: null },
          { new: { type: 'branch', name: 'feature/y' }, old: { type: 'branch', name: 'feature/y' } },
          { new: { type: 'branch', name: 'main' }, old: { type: 'branch', name: 'main' } },
        ],
      },
    });
    expect(run({ scm: 'bitbucket', headers: sign(b, 'repo:push'), body: b })).toMatchObject({ result: 'accepted', branch: 'main', branches: ['feature/y', 'main'] });
    expect(run({ scm: 'bitbucket', headers: sign(b, 'repo:push'), body: b, tracked: ['prod'] })).toMatchObject({ result: 'ignored', branch: 'feature/y', reason: 'untracked branches feature/y, main' });
  });

  it('Cloud: a deleted branch (new: null) is named by old', () => {
    const b = json({ push: { changes: [{ new: null, old: { type: 'branch', name: 'main' }, closed: true }] } });
    expect(run({ scm: 'bitbucket', headers: sign(b, 'repo:push'), body: b })).toMatchObject({ result: 'accepted', branch: 'main' });
  });

  it('Cloud: malformed changes → invalid; an empty change list → ignored', () => {
    for (const bad of [{}, { push: {} }, { push: { changes: [{ new: null, old: null }] } }, { push: { changes: [{ new: { type: 'branch' } }] } }]) {
      const b = json(bad);
      expect(run({ scm: 'bitbucket', headers: sign(b, 'repo:push'), body: b }), JSON.stringify(bad)).toMatchObject({ result: 'invalid' });
    }
    const none = json({ push: { changes: [] } });
    expect(run({ scm: 'bitbucket', headers: sign(none, 'repo:push'), body: none })).toMatchObject({ result: 'ignored', reason: 'the push names no ref' });
  });

  it('Server: ref.id, else refId, else displayId with ref.type; a deletion still names the branch', () => {
    const cases: [unknown, string][] = [
      [{ ref: { id: 'refs/heads/main', displayId: 'main', type: 'BRANCH' }, type: 'DELETE', toHash: '0'.repeat(40) }, 'accepted'],
      [{ refId: 'refs/heads/main' }, 'accepted'],
      [{ ref: { displayId: 'main', type: 'BRANCH' } }, 'accepted'],
      [{ ref: { displayId: 'main', type: 'TAG' } }, 'ignored'],
      [{ ref: { id: 'refs/tags/main', displayId: 'main', type: 'TAG' } }, 'ignored'],
      [{ ref: {} }, 'invalid'],
      ['x', 'invalid'],
    ];
    for (const [change, result] of cases) {
      const b = json({ eventKey: 'repo:refs_changed', changes: [change] });
      expect(run({ scm: 'bitbucket', headers: sign(b, 'repo:refs_changed'), body: b }), JSON.stringify(change)).toMatchObject({ result });
    }
    const noList = json({ eventKey: 'repo:refs_changed' });
    expect(run({ scm: 'bitbucket', headers: sign(noList, 'repo:refs_changed'), body: noList })).toMatchObject({ result: 'invalid', reason: expect.stringMatching(/no changes list/) });
  });

  it('Data Center Basic authentication is not a substitute for the signature; no X-Event-Key → invalid', () => {
    const body = fixture('bitbucket-server-refs-changed.json');
    const basic = `Basic ${Buffer.from(`admin:${SECRET}`).toString('base64')}`;
    expect(run({ scm: 'bitbucket', headers: { 'x-event-key': 'repo:refs_changed', authorization: basic }, body })).toMatchObject({ result: 'unauthorized' });
    expect(run({ scm: 'bitbucket', headers: { 'x-hub-signature': `sha256=${hmacHex(SECRET, body)}` }, body })).toMatchObject({ result: 'invalid', reason: 'no X-Event-Key header' });
  });
});

describe('Azure DevOps', () => {
  const body = fixture('azure-push.json');
  const basic = (credentials: string) => ({ authorization: `Basic ${Buffer.from(credentials).toString('base64')}` });

  it('any user name; the password must be the secret (and may contain ":")', () => {
    expect(run({ scm: 'azure', headers: basic(`anyone:${SECRET}`), body }).result).toBe('accepted');
    expect(run({ scm: 'azure', headers: basic(`:${SECRET}`), body }).result).toBe('accepted');
    expect(run({ scm: 'azure', headers: basic('u:a:b'), body, secret: 'a:b' }).result).toBe('accepted');
    expect(run({ scm: 'azure', headers: { authorization: `basic   ${Buffer.from(`u:${SECRET}`).toString('base64')}` }, body }).result).toBe('accepted');
  });

  it('refuses other schemes and broken credentials', () => {
    for (const authorization of [`Bearer ${SECRET}`, `Basic ${Buffer.from(SECRET).toString('base64')}`, 'Basic !!!', 'Basic', `${SECRET}`]) {
      expect(run({ scm: 'azure', headers: { authorization }, body }), authorization).toMatchObject({ result: 'unauthorized' });
    }
    expect(run({ scm: 'azure', headers: basic(`${SECRET}:x`), body }).result).toBe('unauthorized');
  });

  it("the service hook's canned test (Fabrikam, branch master) is ignored; several refUpdates match on any", () => {
    const sample = json({ eventType: 'git.push', publisherId: 'tfs', resource: { refUpdates: [{ name: 'refs/heads/master' }] } });
    expect(run({ scm: 'azure', headers: basic(`u:${SECRET}`), body: sample })).toMatchObject({ result: 'ignored', branch: 'master' });
    const two = json({ eventType: 'git.push', resource: { refUpdates: [{ name: 'refs/tags/v1' }, { name: 'refs/heads/main' }] } });
    expect(run({ scm: 'azure', headers: basic(`u:${SECRET}`), body: two })).toMatchObject({ result: 'accepted', branch: 'main', branches: ['main'] });
  });

  it('no eventType, no refUpdates (resource details "None"), nameless refUpdates → invalid', () => {
    const cases: [unknown, RegExp][] = [
      [{ resource: { refUpdates: [] } }, /no eventType/],
      [{ eventType: 'git.push' }, /Resource details to send/],
      [{ eventType: 'git.push', resource: { refUpdates: [{}] } }, /refUpdates\[0\] has no name/],
    ];
    for (const [payload, reason] of cases) expect(run({ scm: 'azure', headers: basic(`u:${SECRET}`), body: json(payload) })).toMatchObject({ result: 'invalid', reason: expect.stringMatching(reason) });
  });
});

describe('shared rules', () => {
  it('isTracked: exact names, and prefixes ending in *', () => {
    expect(isTracked(['main'], 'main')).toBe(true);
    expect(isTracked(['main'], 'main2')).toBe(false);
    expect(isTracked(['main'], 'Main')).toBe(false);
    expect(isTracked(['flipt/prod/*'], 'flipt/prod/x')).toBe(true);
    expect(isTracked(['flipt/prod/*'], 'flipt/production/x')).toBe(false);
    expect(isTracked([], 'main')).toBe(false);
  });

  it('the body may be a plain Uint8Array, or a view into a larger buffer', () => {
    for (const kind of ['github', 'gitea', 'bitbucket-cloud', 'azure'] as const) {
      const d = buildDelivery(kind, { secret: SECRET });
      const padded = new Uint8Array(d.body.length + 8);
      padded.set(d.body, 4);
      for (const body of [new Uint8Array(d.body), padded.subarray(4, 4 + d.body.length)]) {
        expect(classifyDelivery({ ...d, body, secret: SECRET, tracked: 'main' }), kind).toMatchObject({ result: 'accepted', branch: 'main' });
      }
    }
  });

  it('a single tracked string is one branch name', () => {
    const d = buildDelivery('github', { secret: SECRET, branch: 'prod' });
    expect(classifyDelivery({ ...d, secret: SECRET, tracked: 'prod' }).result).toBe('accepted');
  });

  it('an unknown scm.type is refused', () => {
    const d = buildDelivery('github', { secret: SECRET });
    expect(classifyDelivery({ ...d, scm: 'svn' as never, secret: SECRET, tracked: 'main' })).toMatchObject({ result: 'unauthorized', reason: expect.stringMatching(/is not one of github, gitlab, gitea, bitbucket, azure/) });
  });

  it('detectProvider: nothing recognisable → undefined; the body limit is 5 MiB', () => {
    expect(detectProvider({ 'content-type': 'application/json' })).toBeUndefined();
    expect(detectProvider({ Authorization: 'Bearer x' })).toBeUndefined();
    expect(MAX_WEBHOOK_BODY_BYTES).toBe(5 * 1024 * 1024);
  });
});
