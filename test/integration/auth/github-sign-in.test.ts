import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/cli';
import { startServer, type TestServer } from '../../support/server';
import { cookieAttributes, HttpBrowser, type HttpAnswer } from '../../support/sign-in-flow';

/**
 * GitHub sign-in against a stand-in for github.com (OAuth authorize and token) and
 * api.github.com (`/user`, `/user/emails`, `/user/orgs`, `/user/teams`) on loopback — GitHub is
 * a third party. Its authorize page signs in whoever the test says and sends the browser back
 * with a code; its token endpoint checks the client, the code and the redirect URI.
 */

interface GithubUser {
  id: number;
  login: string;
  name: string;
  email: string | null;
  emails: { email: string; primary: boolean; verified: boolean }[];
  orgs: string[];
  teams: [org: string, slug: string][];
}

const USERS: Record<string, GithubUser> = {
  octocat: { id: 1, login: 'octocat', name: 'The Octocat', email: null, emails: [{ email: 'octo@acme.test', primary: true, verified: true }], orgs: ['acme'], teams: [['acme', 'platform']] },
  marketer: { id: 2, login: 'marketer', name: 'Marketer', email: 'm@acme.test', emails: [], orgs: ['acme'], teams: [['acme', 'marketing']] },
  outsider: { id: 3, login: 'outsider', name: 'Outsider', email: 'o@other.test', emails: [], orgs: ['other'], teams: [['other', 'platform']] },
};
const CLIENT_ID = 'gh-client';
const CLIENT_SECRET = 'gh-secret';

interface GithubStandIn {
  url: string;
  /** Who the authorize page signs in next. */
  user: string;
  /** Paths the API was asked for, in order. */
  calls: string[];
  close(): Promise<void>;
}

async function startGithub(): Promise<GithubStandIn> {
  const codes = new Map<string, { user: string; redirect: string }>();
  const stand: GithubStandIn = { url: '', user: 'octocat', calls: [], close: async () => undefined };
  const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', stand.url);
    let body = '';
    for await (const chunk of req) body += chunk;
    if (url.pathname === '/login/oauth/authorize') {
      const code = `code-${codes.size}`;
      codes.set(code, { user: stand.user, redirect: url.searchParams.get('redirect_uri') ?? '' });
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      return res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      const form = new URLSearchParams(body);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) return json(res, 200, { error: 'incorrect_client_credentials' });
      if (!grant || grant.redirect !== form.get('redirect_uri')) return json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
      return json(res, 200, { access_token: `token-${grant.user}`, token_type: 'bearer', scope: 'read:org' });
    }
    const user = USERS[(req.headers.authorization ?? '').replace(/^Bearer token-/, '')];
    if (!url.pathname.startsWith('/api/')) return json(res, 404, { message: 'Not Found' });
    stand.calls.push(url.pathname);
    if (!user || req.headers['user-agent'] === undefined) return json(res, 401, { message: 'Bad credentials' });
    switch (url.pathname) {
      case '/api/user':
        return json(res, 200, { id: user.id, login: user.login, name: user.name, email: user.email, avatar_url: `https://avatars.test/${user.id}` });
      case '/api/user/emails':
        return json(res, 200, user.emails);
      case '/api/user/orgs':
        return json(res, 200, user.orgs.map((login) => ({ login })));
      case '/api/user/teams':
        return json(res, 200, user.teams.map(([org, slug]) => ({ slug, name: slug, organization: { login: org } })));
    }
    return json(res, 404, { message: 'Not Found' });
  };
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stand.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stand.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return stand;
}

describe('GitHub sign-in', () => {
  let github: GithubStandIn;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    github = await startGithub();
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await github?.close();
  });

  async function pennon(extra: Record<string, string> = {}): Promise<string> {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    servers.push(
      await startServer({
        PENNON_SERVER_HTTP_PORT: String(port),
        PENNON_AUTHENTICATION_REQUIRED: 'true',
        PENNON_AUTHENTICATION_METHODS_GITHUB_ENABLED: 'true',
        PENNON_AUTHENTICATION_METHODS_GITHUB_CLIENT_ID: CLIENT_ID,
        PENNON_AUTHENTICATION_METHODS_GITHUB_CLIENT_SECRET: CLIENT_SECRET,
        PENNON_AUTHENTICATION_METHODS_GITHUB_REDIRECT_ADDRESS: base,
        PENNON_AUTHENTICATION_METHODS_GITHUB_SCOPES: 'user:email',
        PENNON_AUTHENTICATION_METHODS_GITHUB_SERVER_URL: github.url,
        PENNON_AUTHENTICATION_METHODS_GITHUB_API_URL: `${github.url}/api`,
        PENNON_AUTHENTICATION_SESSION_DOMAIN: '127.0.0.1',
        ...extra,
      }),
    );
    return base;
  }

  /** A browser's sign-in as `user`: Pennon's authorize, GitHub's authorize, Pennon's callback. */
  async function signIn(base: string, user: string, browser = new HttpBrowser()): Promise<{ browser: HttpBrowser; start: HttpAnswer; callback: HttpAnswer }> {
    github.user = user;
    const start = await browser.go(`${base}/auth/v1/method/github/authorize`);
    expect(start.status, start.text).toBe(302);
    const atGithub = await browser.go(start.location!);
    const callback = await browser.go(atGithub.location!);
    return { browser, start, callback };
  }

  describe('with allowed_organizations', () => {
    let base: string;
    beforeAll(async () => {
      base = await pennon({ PENNON_AUTHENTICATION_METHODS_GITHUB_ALLOWED_ORGANIZATIONS: 'acme' });
    });

    it('GET /auth/v1/method lists GitHub enabled with Flipt’s authorize and callback URLs', async () => {
      const methods = (await new HttpBrowser().go(`${base}/auth/v1/method`)).json().methods;
      expect(methods.find((m: { method: string }) => m.method === 'METHOD_GITHUB')).toEqual({
        method: 'METHOD_GITHUB',
        enabled: true,
        sessionCompatible: true,
        metadata: { authorize_url: '/auth/v1/method/github/authorize', callback_url: '/auth/v1/method/github/callback' },
      });
    });

    it('a member signs in: the session cookie, / as the landing page, and self with GitHub’s identity', async () => {
      github.calls.length = 0;
      const { browser, start, callback } = await signIn(base, 'octocat');
      const authorize = new URL(start.location!);
      expect(authorize.origin + authorize.pathname).toBe(`${github.url}/login/oauth/authorize`);
      expect(authorize.searchParams.get('client_id')).toBe(CLIENT_ID);
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${base}/auth/v1/method/github/callback`);
      // read:org is asked for, since organizations are checked.
      expect(authorize.searchParams.get('scope')!.split(' ').sort()).toEqual(['read:org', 'user:email']);
      expect(callback.status, callback.text).toBe(302);
      expect(callback.location).toBe(`${base}/`);
      expect(cookieAttributes(callback, 'flipt_client_token')).toMatchObject({ httponly: '', samesite: 'Lax', path: '/' });

      const self = await browser.go(`${base}/auth/v1/self`, { headers: { accept: 'application/json' } });
      expect(self.status, self.text).toBe(200);
      expect(self.json().method).toBe('METHOD_GITHUB');
      expect(self.json().metadata).toEqual({
        'io.flipt.auth.github.email': 'octo@acme.test', // the profile's is private: the primary verified address
        'io.flipt.auth.github.name': 'The Octocat',
        'io.flipt.auth.github.picture': 'https://avatars.test/1',
        'io.flipt.auth.github.preferred_username': 'octocat',
        'io.pennon.auth.github': JSON.stringify(['acme', 'acme/platform']),
        // Computed, not stored: authorization is off here, so every signed-in person is an admin.
        'io.pennon.auth.grants': JSON.stringify({ global: 'admin', namespaces: {} }),
      });
      expect(github.calls.sort()).toEqual(['/api/user', '/api/user/emails', '/api/user/orgs', '/api/user/teams']);
    });

    it('a non-member is refused (401 naming the setting) and gets no session', async () => {
      const { callback } = await signIn(base, 'outsider');
      expect(callback.status).toBe(401);
      expect(callback.json()).toEqual({ code: 16, message: 'GitHub user outsider is not a member of an allowed organization (authentication.methods.github.allowed_organizations)', details: [] });
      expect(cookieAttributes(callback, 'flipt_client_token')).toBeNull();
    });

    it('a code GitHub does not know, or a state this browser was not given, is refused', async () => {
      const browser = new HttpBrowser();
      const start = await browser.go(`${base}/auth/v1/method/github/authorize`, { headers: { accept: 'application/json' } });
      const state = new URL(start.json().authorizeUrl).searchParams.get('state')!;
      const badCode = await browser.go(`${base}/auth/v1/method/github/callback?code=nope&state=${state}`, { headers: { accept: 'application/json' } });
      expect(badCode.status).toBe(401);
      expect(badCode.json().message).toMatch(/^GitHub refused the code: bad_verification_code/);
      // The refusal spent the state cookie: the same state again is refused for its absence.
      const again = await browser.go(`${base}/auth/v1/method/github/callback?code=nope&state=${state}`, { headers: { accept: 'application/json' } });
      expect(again.json().message).toMatch(/^missing state cookie/);
    });
  });

  it('with allowed_teams, only members of a listed team of an allowed organization get in', async () => {
    const base = await pennon({ PENNON_AUTHENTICATION_METHODS_GITHUB_ALLOWED_ORGANIZATIONS: 'acme', PENNON_AUTHENTICATION_METHODS_GITHUB_ALLOWED_TEAMS_ACME: 'platform' });
    expect((await signIn(base, 'octocat')).callback.status).toBe(302);
    const marketer = await signIn(base, 'marketer');
    expect(marketer.callback.status).toBe(401);
    expect(marketer.callback.json().message).toBe('GitHub user marketer is not a member of an allowed team (authentication.methods.github.allowed_teams)');
  });

  it('without allowed organizations, nobody is refused for membership and organizations are not read', async () => {
    const base = await pennon();
    github.calls.length = 0;
    const { browser, start, callback } = await signIn(base, 'outsider');
    expect(new URL(start.location!).searchParams.get('scope')).toBe('user:email');
    expect(callback.status).toBe(302);
    const metadata = (await browser.go(`${base}/auth/v1/self`)).json().metadata;
    expect(metadata['io.flipt.auth.github.email']).toBe('o@other.test');
    expect(metadata['io.pennon.auth.github']).toBeUndefined();
    expect(github.calls).toEqual(['/api/user']);
  });

  it('an API that cannot be reached is a 503, not a hang', async () => {
    const base = await pennon({ PENNON_AUTHENTICATION_METHODS_GITHUB_API_URL: `http://127.0.0.1:${await freePort()}` });
    const started = performance.now();
    const { callback } = await signIn(base, 'octocat');
    expect(performance.now() - started).toBeLessThan(5500);
    expect(callback.status).toBe(503);
    expect(callback.json()).toEqual({ code: 14, message: expect.stringMatching(/^GitHub is unavailable: \/user/), details: [] });
  });
});
