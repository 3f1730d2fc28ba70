import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeBrowser, launchBrowser } from '../../support/browser';
import { freePort } from '../../support/cli';
import { CLIENT, startOidcProvider, USERS, type TestProvider } from '../../support/oidc-provider';
import { startServer, type TestServer } from '../../support/server';

/**
 * OIDC sign-in in headless Chromium, as a person does it: the browser goes to the authorize URL
 * that `GET /auth/v1/method` gives, signs in and consents at the provider's pages, comes back
 * through the callback and lands on `/`; from there the page's own fetches carry the session
 * cookie (`/auth/v1/self` answers the user), a write needs the CSRF token self hands out, and
 * logout ends the session.
 */

describeBrowser('OIDC sign-in in Chromium', () => {
  let idp: TestProvider;
  let server: TestServer;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    idp = await startOidcProvider([`${base}/auth/v1/method/oidc/test/callback`]);
    const key = 'PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_TEST';
    [server, browser] = await Promise.all([
      startServer({
        PENNON_SERVER_HTTP_PORT: String(port),
        PENNON_AUTHENTICATION_REQUIRED: 'true',
        PENNON_AUTHENTICATION_METHODS_OIDC_ENABLED: 'true',
        PENNON_AUTHENTICATION_SESSION_DOMAIN: '127.0.0.1',
        [`${key}_ISSUER_URL`]: idp.issuer,
        [`${key}_CLIENT_ID`]: CLIENT.id,
        [`${key}_CLIENT_SECRET`]: CLIENT.secret,
        [`${key}_REDIRECT_ADDRESS`]: base,
        [`${key}_SCOPES`]: 'openid profile email groups',
        [`${key}_USE_PKCE`]: 'true',
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await idp?.close();
  });

  it('signs in through the provider’s pages, lands on /, and the page’s fetches are the user’s', async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    try {
      const page = await context.newPage();
      const methods = (await (await fetch(`${base}/auth/v1/method`)).json()) as { methods: { method: string; metadata: any }[] };
      const authorize = methods.methods.find((m) => m.method === 'METHOD_OIDC')!.metadata.providers.test.authorize_url;
      await page.goto(`${base}${authorize}`);
      // The provider's development login form, then its consent form.
      await page.waitForURL(`${idp.issuer}/interaction/**`);
      await page.locator('input[name="login"]').fill('alice');
      await page.locator('input[name="password"]').fill('any password');
      await page.locator('button[type="submit"]').click();
      await page.locator('button[type="submit"]', { hasText: /continue/i }).click();
      await page.waitForURL(`${base}/`);

      // HttpOnly: the page's script cannot read the session cookie, but its requests carry it.
      expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).not.toContain('flipt_client_token');
      const self = await page.evaluate(async () => {
        const res = await fetch('/auth/v1/self');
        return { status: res.status, csrf: res.headers.get('x-csrf-token'), body: (await res.json()) as any };
      });
      expect(self.status).toBe(200);
      expect(self.body.method).toBe('METHOD_OIDC');
      expect(self.body.metadata['io.flipt.auth.oidc.email']).toBe(USERS.alice.email);
      expect(self.body.metadata['io.pennon.auth.groups']).toBe(JSON.stringify(USERS.alice.groups));
      expect(self.csrf).toBeTruthy();

      // A write from the page: refused without the CSRF token, accepted with it.
      const create = (csrf: string | null) =>
        page.evaluate(
          async ([token]) => {
            const headers: Record<string, string> = { 'content-type': 'application/json', ...(token ? { 'x-csrf-token': token } : {}) };
            const res = await fetch('/api/v1/namespaces', { method: 'POST', headers, body: JSON.stringify({ key: `browser-${token ? 'ok' : 'none'}`, name: 'From the browser' }) });
            return { status: res.status, body: (await res.json()) as any };
          },
          [csrf] as const,
        );
      const refused = await create(null);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toMatch(/^missing CSRF token/);
      expect((await create(self.csrf)).status).toBe(200);

      // Logout: the session ends and the cookie is gone.
      const loggedOut = await page.evaluate(async ([token]) => (await fetch('/auth/v1/self/expire', { method: 'PUT', headers: { 'x-csrf-token': token } })).status, [self.csrf!] as const);
      expect(loggedOut).toBe(200);
      expect((await context.cookies(base)).map((c) => c.name)).not.toContain('flipt_client_token');
      expect(await page.evaluate(async () => (await fetch('/auth/v1/self')).status)).toBe(401);
    } finally {
      await context.close();
    }
  });
});
