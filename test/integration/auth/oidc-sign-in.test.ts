import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/cli';
import { CLIENT, PKCE_CLIENT, startOidcProvider, USERS, type TestProvider } from '../../support/oidc-provider';
import { startServer, type TestServer } from '../../support/server';
import { cookieAttributes, HttpBrowser, signInAtProvider, type HttpAnswer } from '../../support/sign-in-flow';

/**
 * OIDC sign-in end to end over HTTP, against a real OpenID Provider (oidc-provider) on loopback:
 * the authorize step (302 for a browser, Flipt's JSON otherwise; the state cookie), the login
 * and consent at the provider, the callback (state checked against the cookie, code exchanged,
 * ID token verified), the session cookie, `GET /auth/v1/self` with it, PKCE on and off, the
 * state refusals, CSRF on cookie requests, and logout.
 */

const BOOTSTRAP = 'oidc-sign-in-bootstrap-token';
const JSON_ACCEPT = { accept: 'application/json' };

function provider(name: string, issuer: string, redirect: string, client: { id: string; secret: string }, pkce: boolean): Record<string, string> {
  const key = `PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_${name.toUpperCase()}`;
  return {
    [`${key}_ISSUER_URL`]: issuer,
    [`${key}_CLIENT_ID`]: client.id,
    [`${key}_CLIENT_SECRET`]: client.secret,
    [`${key}_REDIRECT_ADDRESS`]: redirect,
    [`${key}_SCOPES`]: 'openid profile email groups',
    [`${key}_USE_PKCE`]: String(pkce),
  };
}

function expectError(res: HttpAnswer, status: number, code: number, message: RegExp): void {
  expect(res.status, res.text).toBe(status);
  const body = res.json();
  expect(body).toEqual({ code, message: expect.stringMatching(message), details: [] });
}

describe('OIDC sign-in over HTTP', () => {
  let idp: TestProvider;
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    idp = await startOidcProvider(['test', 'pkce', 'nopkce'].map((p) => `${base}/auth/v1/method/oidc/${p}/callback`));
    server = await startServer({
      PENNON_SERVER_HTTP_PORT: String(port),
      PENNON_AUTHENTICATION_REQUIRED: 'true',
      PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: BOOTSTRAP,
      PENNON_AUTHENTICATION_METHODS_OIDC_ENABLED: 'true',
      PENNON_AUTHENTICATION_SESSION_DOMAIN: '127.0.0.1',
      ...provider('test', idp.issuer, base, CLIENT, false),
      ...provider('pkce', idp.issuer, base, PKCE_CLIENT, true),
      // The provider requires PKCE of this client: a sign-in without it is refused there.
      ...provider('nopkce', idp.issuer, base, PKCE_CLIENT, false),
    });
  });
  afterAll(async () => {
    await server?.stop();
    await idp?.close();
  });

  /** A whole sign-in as `user` with provider `name`, up to (not including) the callback. */
  async function toCallback(browser: HttpBrowser, name = 'test', user = 'alice'): Promise<string> {
    const start = await browser.go(`${base}/auth/v1/method/oidc/${name}/authorize`);
    expect(start.status, start.text).toBe(302);
    return signInAtProvider(browser, start.location!, user);
  }

  async function signedIn(name = 'test'): Promise<{ browser: HttpBrowser; callback: HttpAnswer }> {
    const browser = new HttpBrowser();
    const callback = await browser.go(await toCallback(browser, name));
    expect(callback.status, callback.text).toBe(302);
    return { browser, callback };
  }

  it('GET /auth/v1/method lists OIDC enabled with each provider’s authorize and callback URLs, as Flipt does', async () => {
    const res = await new HttpBrowser().go(`${base}/auth/v1/method`, { headers: JSON_ACCEPT });
    const oidc = res.json().methods.find((m: { method: string }) => m.method === 'METHOD_OIDC');
    expect(oidc).toEqual({
      method: 'METHOD_OIDC',
      enabled: true,
      sessionCompatible: true,
      metadata: {
        providers: Object.fromEntries(
          ['nopkce', 'pkce', 'test'].map((p) => [p, { authorize_url: `/auth/v1/method/oidc/${p}/authorize`, callback_url: `/auth/v1/method/oidc/${p}/callback` }]),
        ),
      },
    });
  });

  it('authorize answers an API client Flipt’s {authorizeUrl}, with a fresh state and nonce each time and the state cookie', async () => {
    const browser = new HttpBrowser();
    const first = await browser.go(`${base}/auth/v1/method/oidc/test/authorize`, { headers: JSON_ACCEPT });
    const second = await browser.go(`${base}/auth/v1/method/oidc/test/authorize`, { headers: JSON_ACCEPT });
    expect(first.status).toBe(200);
    expect(Object.keys(first.json())).toEqual(['authorizeUrl']);
    const [a, b] = [first, second].map((r) => new URL(r.json().authorizeUrl));
    expect(a.origin + a.pathname).toBe(`${idp.issuer}/auth`);
    expect(a.searchParams.get('client_id')).toBe(CLIENT.id);
    expect(a.searchParams.get('response_type')).toBe('code');
    expect(a.searchParams.get('redirect_uri')).toBe(`${base}/auth/v1/method/oidc/test/callback`);
    expect(a.searchParams.get('scope')!.split(' ')).toContain('openid');
    expect(a.searchParams.get('code_challenge')).toBeNull();
    for (const param of ['state', 'nonce']) {
      expect(a.searchParams.get(param)!.length).toBeGreaterThanOrEqual(43);
      expect(a.searchParams.get(param)).not.toBe(b.searchParams.get(param));
    }
    const state = cookieAttributes(first, 'flipt_client_state')!;
    expect(state).toMatchObject({ path: '/auth/v1/method', httponly: '', samesite: 'Lax', 'max-age': '600' });
    expect(state.domain).toBeUndefined(); // an IP address is no cookie domain
    // With use_pkce, an S256 challenge goes with the request.
    const pkce = new URL((await browser.go(`${base}/auth/v1/method/oidc/pkce/authorize`, { headers: JSON_ACCEPT })).json().authorizeUrl);
    expect(pkce.searchParams.get('code_challenge_method')).toBe('S256');
    expect(pkce.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('a browser signs in: provider login and consent, the callback sets the session cookie and sends it to /, and /auth/v1/self answers the user', async () => {
    const { browser, callback } = await signedIn();
    expect(callback.location).toBe(`${base}/`);
    const token = cookieAttributes(callback, 'flipt_client_token')!;
    expect(token).toMatchObject({ path: '/', httponly: '', samesite: 'Lax' });
    expect(token.secure).toBeUndefined(); // session.secure is off here
    expect(Date.parse(token.expires) - Date.now()).toBeGreaterThan(23 * 3600_000); // token_lifetime: 24h
    expect(browser.cookie(base, 'flipt_client_state')).toBeUndefined(); // spent

    const self = await browser.go(`${base}/auth/v1/self`, { headers: JSON_ACCEPT });
    expect(self.status, self.text).toBe(200);
    const me = self.json();
    expect(me.method).toBe('METHOD_OIDC');
    const alice = USERS.alice;
    expect(me.metadata).toMatchObject({
      'io.flipt.auth.oidc.provider': 'test',
      'io.flipt.auth.oidc.email': alice.email,
      'io.flipt.auth.oidc.email_verified': 'true',
      'io.flipt.auth.oidc.name': alice.name,
      'io.flipt.auth.oidc.sub': 'alice',
      'io.pennon.auth.groups': JSON.stringify(alice.groups),
    });
    const claims = JSON.parse(me.metadata['io.pennon.auth.claims']);
    expect(claims).toMatchObject({ sub: 'alice', email: alice.email, groups: alice.groups, iss: idp.issuer, aud: CLIENT.id });
    expect(claims.nonce).toBeUndefined();
    expect(Date.parse(me.expiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    // A GET authenticated by the cookie hands out the CSRF token.
    expect(self.headers['x-csrf-token']).toMatch(/.+-.+/);
  });

  it('an API client’s callback answers Flipt’s {clientToken, authentication}; the token works as a bearer token', async () => {
    const browser = new HttpBrowser();
    const res = await browser.go(await toCallback(browser), { headers: JSON_ACCEPT });
    expect(res.status, res.text).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['clientToken', 'authentication']);
    expect(body.authentication.method).toBe('METHOD_OIDC');
    const self = await new HttpBrowser().go(`${base}/auth/v1/self`, { headers: { ...JSON_ACCEPT, authorization: `Bearer ${body.clientToken}` } });
    expect(self.json().id).toBe(body.authentication.id);
  });

  it('use_pkce: on, the provider that requires PKCE lets the user in; off, it refuses and so does the callback', async () => {
    const { browser } = await signedIn('pkce');
    expect((await browser.go(`${base}/auth/v1/self`, { headers: JSON_ACCEPT })).json().metadata['io.flipt.auth.oidc.provider']).toBe('pkce');

    const without = new HttpBrowser();
    const start = await without.go(`${base}/auth/v1/method/oidc/nopkce/authorize`);
    // The provider sends the browser straight back with its error.
    const back = await signInAtProvider(without, start.location!, 'alice');
    expect(new URL(back).searchParams.get('error')).toBe('invalid_request');
    const res = await without.go(back, { headers: JSON_ACCEPT });
    expectError(res, 401, 16, /^the provider refused the sign-in: invalid_request/);
    expect(cookieAttributes(res, 'flipt_client_token')).toBeNull();
  });

  it('a callback whose state is not the one the browser was given is refused, and so is one without the state cookie', async () => {
    const browser = new HttpBrowser();
    const back = new URL(await toCallback(browser));
    const forged = new URL(back);
    forged.searchParams.set('state', 'x'.repeat(43));
    expectError(await browser.go(forged.href, { headers: JSON_ACCEPT }), 401, 16, /^unexpected state parameter/);

    const other = new HttpBrowser();
    const elsewhere = await toCallback(other);
    // Another browser (no state cookie) following the same link.
    expectError(await new HttpBrowser().go(elsewhere, { headers: JSON_ACCEPT }), 401, 16, /^missing state cookie flipt_client_state/);
    const noState = new URL(elsewhere);
    noState.searchParams.delete('state');
    expectError(await other.go(noState.href, { headers: JSON_ACCEPT }), 401, 16, /^missing state parameter/);
  });

  it('an unknown provider is a 404 naming it, at authorize and at callback', async () => {
    const browser = new HttpBrowser();
    expectError(await browser.go(`${base}/auth/v1/method/oidc/nope/authorize`, { headers: JSON_ACCEPT }), 404, 5, /"nope".*provider not found/);
    expectError(await browser.go(`${base}/auth/v1/method/oidc/nope/callback?code=c&state=s`, { headers: JSON_ACCEPT }), 404, 5, /"nope".*provider not found/);
  });

  describe('CSRF on requests the session cookie authenticates', () => {
    const namespace = (key: string) => JSON.stringify({ key, name: key });
    const post = (browser: HttpBrowser, key: string, headers: Record<string, string> = {}) =>
      browser.go(`${base}/api/v1/namespaces`, { method: 'POST', body: namespace(key), headers: { ...JSON_ACCEPT, 'content-type': 'application/json', ...headers } });

    it('a POST without X-CSRF-Token is refused (403); with the token self handed out it is accepted; a bearer POST needs none', async () => {
      const { browser } = await signedIn();
      expectError(await post(browser, 'csrf-none'), 403, 7, /^missing CSRF token/);
      expectError(await post(browser, 'csrf-bad', { 'x-csrf-token': 'abc-def' }), 403, 7, /^invalid CSRF token/);
      const token = (await browser.go(`${base}/auth/v1/self`, { headers: JSON_ACCEPT })).headers['x-csrf-token'] as string;
      const ok = await post(browser, 'csrf-ok', { 'x-csrf-token': token });
      expect(ok.status, ok.text).toBe(200);
      // The audit trail names the person, not just the session's id.
      const trail = await new HttpBrowser().go(`${base}/api/v1/audit/events?type=namespace&key=csrf-ok`, { headers: { ...JSON_ACCEPT, authorization: `Bearer ${BOOTSTRAP}` } });
      expect(trail.json().events.map((e: { metadata: unknown }) => e.metadata)).toEqual([
        { actor: { authentication: 'oidc', id: expect.any(String), name: 'Alice Example', email: 'alice@example.com', ip: expect.any(String) } },
      ]);
      // The same request from the page's own origin passes; another origin is refused.
      expect((await post(browser, 'csrf-origin', { 'x-csrf-token': token, origin: base })).status).toBe(200);
      expectError(await post(browser, 'csrf-evil', { 'x-csrf-token': token, origin: 'https://evil.example' }), 403, 7, /^origin https:\/\/evil\.example may not use this session/);
      // Another session's token is refused: tokens are bound to the session they were handed to.
      const { browser: other } = await signedIn();
      const otherToken = (await other.go(`${base}/auth/v1/self`, { headers: JSON_ACCEPT })).headers['x-csrf-token'] as string;
      expectError(await post(browser, 'csrf-other', { 'x-csrf-token': otherToken }), 403, 7, /^invalid CSRF token/);
      // A bearer request carries no ambient credential: no CSRF token needed.
      const bearer = await post(new HttpBrowser(), 'csrf-bearer', { authorization: `Bearer ${BOOTSTRAP}` });
      expect(bearer.status, bearer.text).toBe(200);
    });

    it('the evaluation fast lane steps aside for a cookie session: Fastify’s gate checks the cookie and the CSRF token', async () => {
      const { browser } = await signedIn();
      const evaluate = (headers: Record<string, string>) =>
        browser.go(`${base}/evaluate/v1/boolean`, {
          method: 'POST',
          body: JSON.stringify({ flagKey: 'missing', entityId: 'e', context: {} }),
          headers: { ...JSON_ACCEPT, 'content-type': 'application/json', ...headers },
        });
      expectError(await evaluate({}), 403, 7, /^missing CSRF token/);
      const token = (await browser.go(`${base}/auth/v1/self`, { headers: JSON_ACCEPT })).headers['x-csrf-token'] as string;
      // Authenticated and admitted: the flag's absence is the answer.
      expectError(await evaluate({ 'x-csrf-token': token }), 404, 5, /missing/);
    });
  });

  it('logout (PUT /auth/v1/self/expire) clears both cookies and the session no longer works', async () => {
    const { browser } = await signedIn();
    const token = browser.cookie(base, 'flipt_client_token')!;
    const csrf = (await browser.go(`${base}/auth/v1/self`, { headers: JSON_ACCEPT })).headers['x-csrf-token'] as string;
    const out = await browser.go(`${base}/auth/v1/self/expire`, { method: 'PUT', body: '{}', headers: { ...JSON_ACCEPT, 'content-type': 'application/json', 'x-csrf-token': csrf } });
    expect(out.status, out.text).toBe(200);
    for (const name of ['flipt_client_token', 'flipt_client_state']) expect(cookieAttributes(out, name), name).toMatchObject({ value: '', 'max-age': '0' });
    expect(browser.cookie(base, 'flipt_client_token')).toBeUndefined();
    // The old cookie, sent again, is refused (and told to go).
    const again = await new HttpBrowser().go(`${base}/auth/v1/self`, { headers: { ...JSON_ACCEPT, cookie: `flipt_client_token=${token}` } });
    expectError(again, 401, 16, /request was not authenticated/);
    expect(cookieAttributes(again, 'flipt_client_token')).toMatchObject({ value: '', 'max-age': '0' });
  });
});
