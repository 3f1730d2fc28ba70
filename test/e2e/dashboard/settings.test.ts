import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot, settled } from '../../support/browser';
import { logIn, startDashboard, stopDashboard, tokenAuth } from '../../support/dashboard';
import { expectStatus, type TestServer } from '../../support/server';

/**
 * Settings → General in Chromium against a real server: the theme (kept across a reload, the
 * header's toggle in step), the time zone of displayed times (local or UTC), and logging out
 * (a pasted token forgotten in the browser, still valid on the server).
 */
const BOOTSTRAP = 'settings-bootstrap-secret';

type G = {
  document: { documentElement: { dataset: { theme?: string } }; body: unknown };
  getComputedStyle(e: unknown): { backgroundColor: string };
  localStorage: { getItem(k: string): string | null };
  sessionStorage: { getItem(k: string): string | null };
};
const themeOf = (page: Page) => page.evaluate(() => (globalThis as unknown as G).document.documentElement.dataset.theme ?? null);
const background = (page: Page) =>
  page.evaluate(() => {
    const w = globalThis as unknown as G;
    return w.getComputedStyle(w.document.body).backgroundColor;
  });

/** The text of a namespace's cell under the column headed `column` on the namespaces list. */
async function cell(page: Page, ns: string, column: string): Promise<string> {
  const headers = await page.locator('table thead th').allTextContents();
  const at = headers.findIndex((h) => h.trim().toLowerCase().startsWith(column.toLowerCase()));
  expect(at).toBeGreaterThanOrEqual(0);
  return (await page.locator(`tr[data-key="${ns}"] td`).nth(at).textContent())!.trim();
}

describeBrowser('dashboard: settings', () => {
  let server: TestServer;
  let secured: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, secured, browser } = await startDashboard({ server: {}, secured: tokenAuth(BOOTSTRAP) })));
  afterAll(() => stopDashboard(browser, server, secured));

  it('switches the theme from Settings → General and keeps it after a reload', async () => {
    const { page, problems, close } = await openDashboard(browser, server.url, '/');
    try {
      // Reached from the navigation.
      await page.getByRole('link', { name: 'General', exact: true }).click();
      await page.waitForURL(/#\/settings\/general$/);
      await page.getByRole('heading', { name: 'General', level: 1 }).waitFor();
      expect(await page.getByRole('radio', { name: /^System/ }).isChecked()).toBe(true);
      expect(await page.getByText('This instance does not require authentication').count()).toBe(1);
      await screenshot(page, 'settings-general');

      await page.getByRole('radio', { name: /^Dark/ }).check();
      expect(await themeOf(page)).toBe('dark');
      expect(await background(page)).toBe('rgb(18, 20, 23)');
      // The header's toggle follows the choice made here.
      await page.getByRole('button', { name: 'Theme: dark' }).waitFor();

      await page.reload();
      await settled(page);
      expect(await themeOf(page)).toBe('dark');
      expect(await background(page)).toBe('rgb(18, 20, 23)');
      expect(await page.getByRole('radio', { name: /^Dark/ }).isChecked()).toBe(true);
      expect(await page.evaluate(() => (globalThis as unknown as G).localStorage.getItem('pennon.theme'))).toBe('dark');
      await screenshot(page, 'settings-general-dark');

      // And the other way: the header's toggle (dark → system) moves the radio here.
      await page.getByRole('button', { name: 'Theme: dark' }).click();
      expect(await page.getByRole('radio', { name: /^System/ }).isChecked()).toBe(true);
      expect(await themeOf(page)).toBeNull();
      expect(await page.evaluate(() => (globalThis as unknown as G).localStorage.getItem('pennon.theme'))).toBeNull();
      await page.getByRole('radio', { name: /^Light/ }).check();
      expect(await themeOf(page)).toBe('light');
      expect(await background(page)).toBe('rgb(247, 248, 250)');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows times in UTC once chosen, in the browser’s zone otherwise, and remembers the choice', async () => {
    const zone = 'Asia/Kolkata'; // UTC+05:30: local and UTC times differ by hours and minutes.
    const { page, problems, close } = await openDashboard(browser, server.url, '/settings/namespaces', { timezoneId: zone });
    try {
      const createdAt: string = expectStatus(await server.api.get('/api/v1/namespaces/default'), 200).createdAt;
      // The expected text, formatted by the browser's Intl in a zone named here.
      const inZone = (timeZone: string) =>
        page.evaluate(
          ([iso, tz]) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: tz }),
          [createdAt, timeZone] as const,
        );
      await page.locator('tr[data-key="default"]').waitFor();
      const local = await cell(page, 'default', 'Created');
      expect(local).toBe(await inZone(zone));

      await page.getByRole('link', { name: 'General', exact: true }).click();
      expect(await page.getByRole('radio', { name: /^Local/ }).isChecked()).toBe(true);
      expect(await page.getByRole('radio', { name: /^Local/ }).locator('xpath=..').textContent()).toMatch(/^Local — Asia\/(Kolkata|Calcutta)$/); // ICU's name for it varies
      await page.getByRole('radio', { name: /^UTC/ }).check();
      expect(await page.getByTestId('time-example').textContent()).toMatch(/ UTC$/);

      await page.getByRole('link', { name: 'Namespaces', exact: true }).click();
      await page.locator('tr[data-key="default"]').waitFor();
      const utc = await cell(page, 'default', 'Created');
      expect(utc).toBe(`${await inZone('UTC')} UTC`);
      expect(utc).not.toBe(`${local} UTC`);

      await page.reload();
      await page.locator('tr[data-key="default"]').waitFor();
      expect(await cell(page, 'default', 'Created')).toBe(utc);
      expect(await page.evaluate(() => (globalThis as unknown as G).localStorage.getItem('pennon.timezone'))).toBe('utc');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('logs out: the token is forgotten here, stays valid on the server, and the sign-in screen shows', async () => {
    const admin = secured.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
    const { clientToken } = expectStatus(await admin.post('/auth/v1/method/token', { name: 'settings-logout' }), 200);
    const { page, problems, close } = await openDashboard(browser, secured.url, '/settings/general');
    try {
      await logIn(page, clientToken);
      await page.waitForURL(/#\/settings\/general$/);
      const section = page.getByRole('region', { name: 'Session' });
      await section.getByText('Signed in as').waitFor();
      expect(await section.getByTestId('session-name').textContent()).toBe('settings-logout');
      await section.getByText('it stays valid elsewhere until revoked under API tokens').waitFor();
      await screenshot(page, 'settings-general-session');
      await section.getByRole('button', { name: 'Log out' }).click();

      await page.getByLabel('Client token', { exact: true }).waitFor();
      expect(await page.evaluate(() => (globalThis as unknown as G).sessionStorage.getItem('pennon.token'))).toBeNull();
      // Forgotten here, not expired: the server still accepts the token.
      expect(expectStatus(await secured.api.withHeaders({ authorization: `Bearer ${clientToken}` }).get('/auth/v1/self'), 200).method).toBe('METHOD_TOKEN');
      expect(expectStatus(await admin.get('/auth/v1/self'), 200).method).toBe('METHOD_TOKEN');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
