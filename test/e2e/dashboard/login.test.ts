import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot, settled } from '../../support/browser';
import { logIn, startDashboard, stopDashboard, tokenAuth } from '../../support/dashboard';
import { expectStatus, type TestServer } from '../../support/server';

/**
 * Logging in with a client token when the server requires authentication: a wrong token is
 * refused beside the field, the right one is kept for the browser session, and a 401 later
 * (the token deleted meanwhile) returns to the login screen.
 */
const BOOTSTRAP = 'dashboard-bootstrap-secret';

const tokenInSession = (page: Page) => page.evaluate(() => (globalThis as unknown as { sessionStorage: Storage }).sessionStorage.getItem('pennon.token'));
interface Storage {
  getItem(key: string): string | null;
}

describeBrowser('dashboard: login', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, browser } = await startDashboard({ server: tokenAuth(BOOTSTRAP) })));
  afterAll(() => stopDashboard(browser, server));

  const admin = () => server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });

  it('refuses a wrong token beside the field, accepts the right one, returns to the deep link and keeps it across a reload', async () => {
    const { page, problems, close } = await openDashboard(browser, server.url, '/settings/namespaces');
    try {
      await page.waitForURL(/#\/login$/);
      const field = page.getByLabel('Client token', { exact: true });
      await screenshot(page, 'login');

      await field.fill('not-a-token');
      await page.getByRole('button', { name: 'Log in' }).click();
      const error = page.locator('.field-error[data-field="token"]');
      await error.waitFor();
      expect(await error.textContent()).toBe('This token was not accepted (request was not authenticated).');
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await tokenInSession(page)).toBeNull();
      await screenshot(page, 'login-refused');

      await field.fill(BOOTSTRAP);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/#\/settings\/namespaces$/);
      await page.getByRole('row', { name: /default/ }).waitFor();
      expect(await tokenInSession(page)).toBe(BOOTSTRAP);

      await page.reload();
      await settled(page);
      expect(page.url()).toMatch(/#\/settings\/namespaces$/);
      await page.getByRole('row', { name: /default/ }).waitFor();

      // The page's requests carry the token: a namespace created in it is in the API.
      const key = `after-login-${Date.now().toString(36)}`;
      await page.getByRole('link', { name: 'New namespace' }).click();
      await page.getByLabel('Name', { exact: true }).fill(key);
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('row', { name: new RegExp(key) }).waitFor();
      expect(expectStatus(await admin().get(`/api/v1/namespaces/${key}`), 200).name).toBe(key);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('returns to the login screen on a 401 once the token is deleted, and forgets it', async () => {
    const created = expectStatus(await admin().post('/auth/v1/method/token', { name: 'dashboard-e2e', description: 'deleted mid-session' }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, '/login');
    try {
      await logIn(page, created.clientToken);
      await page.getByRole('heading', { name: 'Flags', level: 1 }).waitFor();
      // The heading renders before the flag list's own requests answer; deleting the token
      // while one is in flight sends the app to the login screen from the Flags page, not from
      // the click this test makes. The list is read twice: on opening, and once more when the
      // live updates are open (what changed in between). The network never goes idle: the live
      // updates' stream stays open.
      await page.locator('[data-live-status="live"]').waitFor();
      await page.waitForFunction(
        () => (globalThis as unknown as { performance: { getEntriesByType(t: string): { name: string }[] } }).performance.getEntriesByType('resource').filter((e) => /\/namespaces\/default\/flags(\?|$)/.test(e.name)).length >= 2,
      );

      expectStatus(await admin().delete(`/auth/v1/tokens/${created.authentication.id}`), 200);
      await page.getByRole('link', { name: 'Namespaces' }).click();
      await page.waitForURL(/#\/login$/);
      await page.getByLabel('Client token', { exact: true }).waitFor();
      expect(await tokenInSession(page)).toBeNull();

      // The API holds no such token any more.
      const tokens = expectStatus(await admin().get('/auth/v1/tokens'), 200).authentications as { id: string }[];
      expect(tokens.map((t) => t.id)).not.toContain(created.authentication.id);
      // Logging in again goes back to where the 401 happened.
      await logIn(page, BOOTSTRAP);
      await page.waitForURL(/#\/settings\/namespaces$/);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
