import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { logIn, startDashboard, stopDashboard, tokenAuth } from '../../support/dashboard';
import { unique } from '../../support/resources';
import { expectStatus, type TestServer } from '../../support/server';

/**
 * Signing in to the dashboard, in Chromium against a real server.
 *
 * 1. The sign-in screen with the token form alone (the server offers no browser sign-in), the
 *    account menu naming the token, and logging out — which forgets the token here only.
 * 2. "Sign in with Keycloak" and "Sign in with GitHub" listed from `/auth/v1/method`; a whole
 *    OIDC sign-in through a real OpenID provider (oidc-provider on loopback, its development
 *    login pages); changes made with the cookie carrying the CSRF token; logging out ending the
 *    session.
 */

const BOOTSTRAP = 'sign-in-bootstrap-secret';
type G = { sessionStorage: { getItem(k: string): string | null } };
const tokenInSession = (page: Page) => page.evaluate(() => (globalThis as unknown as G).sessionStorage.getItem('pennon.token'));

describeBrowser('dashboard: sign-in with a client token, the account menu, logging out', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, browser } = await startDashboard({ server: tokenAuth(BOOTSTRAP) })));
  afterAll(() => stopDashboard(browser, server));

  const admin = () => server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });

  it('shows the token form alone, names the token in the account menu, and logging out forgets it here only', async () => {
    const name = unique('dash-sign-in');
    const { clientToken } = expectStatus(await admin().post('/auth/v1/method/token', { name }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, '/namespaces/default/flags');
    try {
      await page.waitForURL(/#\/login$/);
      await page.getByText('This server requires you to sign in.').waitFor();
      // The server offers no browser sign-in: nothing to click, no "or" divider.
      expect(await page.getByRole('link', { name: /^Sign in with/ }).count()).toBe(0);
      expect(await page.locator('.login-divider').count()).toBe(0);

      await logIn(page, clientToken);
      await page.waitForURL(/#\/namespaces\/default\/flags$/);
      expect(await tokenInSession(page)).toBe(clientToken);

      // The header names who is signed in, and their role (no roles on this server: admin).
      const account = page.getByRole('button', { name: `Account: ${name}, admin` });
      await account.click();
      const panel = page.getByRole('region', { name: 'Account' });
      expect(await panel.getByTestId('user-method').textContent()).toBe('Client token');
      expect(await panel.getByTestId('user-role').textContent()).toMatch(/^Admin/);
      expect(await page.getByTestId('role-banner').count()).toBe(0);
      await page.getByRole('link', { name: 'New flag' }).first().waitFor();
      await screenshot(page, 'account-menu');
      // Escape closes it, focus back on its button.
      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'detached' });

      await account.click();
      await panel.getByRole('button', { name: 'Log out' }).click();
      await page.getByLabel('Client token', { exact: true }).waitFor();
      expect(await tokenInSession(page)).toBeNull();
      // Forgotten here, not revoked: an API token may be an application's too.
      expect((await server.api.withHeaders({ authorization: `Bearer ${clientToken}` }).get('/api/v1/namespaces/default/flags')).status).toBe(200);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});


/** A free loopback port (Pennon's redirect address must be known before it starts). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const PERSON = { name: 'Ada Lovelace', email: 'ada@example.com' };

/**
 * A real OpenID provider standing in for Keycloak (a third party): oidc-provider with its
 * development login and consent pages, one confidential client — Pennon — and every login
 * answering as PERSON.
 */
async function startOpenIdProvider(port: number, redirectUri: string): Promise<{ issuer: string; stop(): Promise<void> }> {
  // Untyped (the package ships no types): imported by a name the compiler does not resolve.
  const specifier: string = 'oidc-provider';
  const { default: Provider } = (await import(specifier)) as { default: new (issuer: string, config: unknown) => { callback(): (req: IncomingMessage, res: ServerResponse) => void } };
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'pennon', client_secret: 'pennon-test-secret', redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, name: PERSON.name, email: PERSON.email, email_verified: true }) }),
    cookies: { keys: ['sign-in-test-only-key'] },
  });
  const http: Server = createHttpServer(provider.callback());
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  return { issuer, stop: () => new Promise<void>((resolve) => http.close(() => resolve())) };
}

describeBrowser('dashboard: sign-in with OIDC and GitHub', () => {
  let server: TestServer;
  let browser: Browser;
  let provider: { issuer: string; stop(): Promise<void> };
  beforeAll(async () => {
    const [pennonPort, providerPort] = [await freePort(), await freePort()];
    const address = `http://127.0.0.1:${pennonPort}`;
    provider = await startOpenIdProvider(providerPort, `${address}/auth/v1/method/oidc/keycloak/callback`);
    ({ server, browser } = await startDashboard({
      server: {
        ...tokenAuth(BOOTSTRAP),
        PENNON_SERVER_HTTP_PORT: String(pennonPort),
        PENNON_AUTHENTICATION_SESSION_DOMAIN: '127.0.0.1',
        PENNON_AUTHENTICATION_SESSION_SECURE: 'false',
        PENNON_AUTHENTICATION_SESSION_CSRF_KEY: 'sign-in-test-csrf-key-0123456789abcdef',
        PENNON_AUTHENTICATION_METHODS_OIDC_ENABLED: 'true',
        PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_KEYCLOAK_ISSUER_URL: provider.issuer,
        PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_KEYCLOAK_CLIENT_ID: 'pennon',
        PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_KEYCLOAK_CLIENT_SECRET: 'pennon-test-secret',
        PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_KEYCLOAK_REDIRECT_ADDRESS: address,
        PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_KEYCLOAK_SCOPES: 'openid email profile',
        // oidc-provider requires PKCE of every authorization request.
        PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_KEYCLOAK_USE_PKCE: 'true',
        // GitHub is only listed here, never followed: the test stays off the network.
        PENNON_AUTHENTICATION_METHODS_GITHUB_ENABLED: 'true',
        PENNON_AUTHENTICATION_METHODS_GITHUB_CLIENT_ID: 'github-test-client',
        PENNON_AUTHENTICATION_METHODS_GITHUB_CLIENT_SECRET: 'github-test-secret',
        PENNON_AUTHENTICATION_METHODS_GITHUB_REDIRECT_ADDRESS: address,
      },
    }));
  });
  afterAll(async () => {
    await stopDashboard(browser, server);
    await provider?.stop();
  });

  it('lists “Sign in with Keycloak” and “Sign in with GitHub” above the token form, linking to their authorize URLs', async () => {
    const methods = expectStatus(await server.api.get('/auth/v1/method'), 200).methods as { method: string; enabled: boolean }[];
    expect(methods.filter((m) => m.enabled).map((m) => m.method)).toEqual(expect.arrayContaining(['METHOD_TOKEN', 'METHOD_OIDC', 'METHOD_GITHUB']));
    const { page, problems, close } = await openDashboard(browser, server.url, '/login');
    try {
      const keycloak = page.getByRole('link', { name: 'Sign in with Keycloak', exact: true });
      const github = page.getByRole('link', { name: 'Sign in with GitHub', exact: true });
      await keycloak.waitFor();
      expect(await keycloak.getAttribute('href')).toBe('auth/v1/method/oidc/keycloak/authorize');
      expect(await github.getAttribute('href')).toBe('auth/v1/method/github/authorize');
      await page.getByText('or with a client token').waitFor();
      await page.getByLabel('Client token', { exact: true }).waitFor();
      await screenshot(page, 'sign-in-providers');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('signs in through the provider: back where it started, signed in by cookie; changes carry the CSRF token; logging out ends the session', async () => {
    const segment = unique('signed-in-segment');
    const { page, context, problems, close } = await openDashboard(browser, server.url, '/namespaces/default/segments');
    try {
      await page.waitForURL(/#\/login$/);
      expect(problems).toEqual([]);
      await page.getByRole('link', { name: 'Sign in with Keycloak', exact: true }).click();
      // The provider's own pages (oidc-provider's development login and consent).
      await page.waitForURL((url) => url.href.startsWith(provider.issuer));
      await page.locator('input[name="login"]').fill('ada');
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();

      // Back at the screen the sign-in started from, signed in by the session cookie (no token here).
      await page.waitForURL(/#\/namespaces\/default\/segments$/);
      // The provider's pages' own complaints (their web fonts are off the network) are not ours.
      const back = problems.length;
      const account = page.getByRole('button', { name: `Account: ${PERSON.name}, admin` });
      await account.waitFor();
      expect(await tokenInSession(page)).toBeNull();
      const cookie = (await context.cookies(server.url)).find((c) => c.name === 'flipt_client_token');
      expect(cookie?.httpOnly).toBe(true);
      await account.click();
      const panel = page.getByRole('region', { name: 'Account' });
      expect(await panel.getByTestId('user-method').textContent()).toBe('Keycloak');
      await panel.getByText(PERSON.email).waitFor();
      await page.keyboard.press('Escape');

      // A change made with the cookie carries the CSRF token the server handed out.
      await page.getByRole('link', { name: 'New segment' }).first().click();
      await page.getByLabel('Name', { exact: true }).fill(segment);
      const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/v1/namespaces/default/segments'));
      await page.getByRole('button', { name: 'Create' }).click();
      expect((await sent).headers()['x-csrf-token']).toBeTruthy();
      await page.waitForURL(new RegExp(`#/namespaces/default/segments/${segment}$`));
      expectStatus(await server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` }).get(`/api/v1/namespaces/default/segments/${segment}`), 200);

      // Logging out ends the session: the sign-in screen, and the old cookie no longer works.
      await account.click();
      await page.getByRole('region', { name: 'Account' }).getByRole('button', { name: 'Log out' }).click();
      await page.getByRole('link', { name: 'Sign in with Keycloak', exact: true }).waitFor();
      expect((await server.api.withHeaders({ cookie: `flipt_client_token=${cookie!.value}` }).get('/auth/v1/self')).status).toBe(401);
      expect(problems.slice(back)).toEqual([]);
    } finally {
      await close();
    }
  });
});
