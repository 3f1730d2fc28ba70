import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot, settled } from '../../support/browser';
import { logIn, startDashboard, stopDashboard, tokenAuth } from '../../support/dashboard';
import { unique } from '../../support/resources';
import { expectStatus, type TestServer } from '../../support/server';

/**
 * API tokens through the dashboard (Settings → API tokens), in Chromium, against a real server
 * that requires authentication: a token created with an expiry and a namespace scope is shown
 * once, works against the API within its namespace only, and stops working once deleted from
 * the list; several are deleted at once; the server's refusals are shown beside their field.
 */
const BOOTSTRAP = 'tokens-e2e-bootstrap-secret';
const NAME = 'io.flipt.auth.token.name';

interface Auth {
  id: string;
  expiresAt?: string;
  metadata: Record<string, string>;
}

describeBrowser('dashboard: API tokens', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, browser } = await startDashboard({ server: tokenAuth(BOOTSTRAP) })));
  afterAll(() => stopDashboard(browser, server));

  const admin = () => server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
  const bearer = (token: string) => server.api.withHeaders({ authorization: `Bearer ${token}` });
  const tokens = async (): Promise<Auth[]> => expectStatus(await admin().get('/auth/v1/tokens?method=METHOD_TOKEN&limit=100'), 200).authentications;

  /** The tokens screen, logged in with the bootstrap token. */
  async function openTokens(options: { width?: number; colorScheme?: 'light' | 'dark'; timezoneId?: string } = {}) {
    const opened = await openDashboard(browser, server.url, '/settings/tokens', options);
    await logIn(opened.page, BOOTSTRAP);
    await opened.page.waitForURL(/#\/settings\/tokens$/);
    await settled(opened.page);
    await opened.page.getByRole('table', { name: 'API tokens' }).waitFor();
    return opened;
  }

  const row = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) });

  it('creates a token with an expiry and a namespace scope: shown once, works in its namespace, refused once deleted', async () => {
    const ns = unique('scoped');
    const flag = unique('scoped-flag');
    expectStatus(await admin().post('/api/v1/namespaces', { key: ns, name: 'Scoped team' }), 200);
    expectStatus(await admin().post(`/api/v1/namespaces/${ns}/flags`, { key: flag, name: flag, type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
    const name = unique('checkout-service');
    // Tokyo (UTC+9, no daylight saving): the expiry date is the end of that day there.
    const { page, problems, close } = await openTokens({ timezoneId: 'Asia/Tokyo' });
    try {
      // The bootstrap token is listed, marked as the one this dashboard uses.
      const own = page.getByRole('row').filter({ hasText: 'initial_bootstrap_token' });
      await own.getByText('this session').waitFor();

      await page.getByRole('button', { name: 'New token' }).click();
      const dialog = page.getByRole('dialog', { name: 'New API token' });
      await dialog.getByLabel('Name', { exact: true }).fill(name);
      await dialog.getByLabel('Description', { exact: true }).fill('Reads the scoped flags');
      const year = new Date().getFullYear() + 1;
      await dialog.getByLabel('Expires on', { exact: true }).fill(`${year}-06-30`);
      await dialog.getByLabel('Namespace scope', { exact: true }).selectOption(ns);
      await dialog.getByRole('button', { name: 'Create token' }).click();

      // Shown once, with a warning and a copy button.
      const shown = page.getByRole('dialog', { name: 'Token created' });
      await shown.waitFor();
      const secret = await shown.getByLabel('Client token', { exact: true }).inputValue();
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}=$/);
      await shown.getByText('It is shown only this once').waitFor();
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      await shown.getByRole('button', { name: 'Copy' }).click();
      await shown.getByText(/Copied to the clipboard|press Ctrl\+C/).waitFor();
      await screenshot(page, 'token-created');

      // The API holds it with the name, description, scope and expiry (end of that day, local time).
      const expected = `${year}-06-30T14:59:59Z`;
      const held = (await tokens()).find((a) => a.metadata[NAME] === name);
      expect(held).toBeDefined();
      expect(held!.metadata).toMatchObject({ 'io.flipt.auth.token.description': 'Reads the scoped flags', 'io.flipt.auth.token.namespace': ns });
      expect(held!.expiresAt).toBe(expected);

      // It works in its namespace, and only there.
      const listed = expectStatus(await bearer(secret).get(`/api/v1/namespaces/${ns}/flags`), 200);
      expect(listed.flags.map((f: { key: string }) => f.key)).toEqual([flag]);
      const evaluated = expectStatus(await bearer(secret).post('/evaluate/v1/boolean', { namespaceKey: ns, flagKey: flag, entityId: 'e1', context: {} }), 200);
      expect(evaluated.enabled).toBe(true);
      expect((await bearer(secret).get('/api/v1/namespaces/default/flags')).status).toBe(401);

      // Closing removes the secret from the page; the list shows the new token.
      await shown.getByRole('button', { name: 'Done, I have copied it' }).click();
      await shown.waitFor({ state: 'hidden' });
      expect(await page.locator(`input[value="${secret}"]`).count()).toBe(0);
      expect(await page.content()).not.toContain(secret);
      const created = row(page, name);
      await created.waitFor();
      expect(await created.innerText()).toContain(ns);
      await screenshot(page, 'tokens-list');

      // Delete it from its row.
      await page.getByRole('button', { name: `Delete token ${name}` }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete token?' });
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await page.getByText(`Token ${name} deleted`).waitFor();
      await created.waitFor({ state: 'detached' });
      expect((await tokens()).some((a) => a.id === held!.id)).toBe(false);
      expect((await admin().get(`/auth/v1/tokens/${held!.id}`)).status).toBe(404);
      expect((await bearer(secret).get(`/api/v1/namespaces/${ns}/flags`)).status).toBe(401);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('deletes several selected tokens at once', async () => {
    const names = [unique('ci-a'), unique('ci-b'), unique('ci-keep')];
    const ids: string[] = [];
    for (const name of names) ids.push(expectStatus(await admin().post('/auth/v1/method/token', { name }), 200).authentication.id);
    const { page, problems, close } = await openTokens();
    try {
      await row(page, names[2]).waitFor();
      await page.getByRole('checkbox', { name: `Select token ${names[0]}` }).check();
      await page.getByRole('checkbox', { name: `Select token ${names[1]}` }).check();
      await page.getByText('2 selected').waitFor();
      await page.getByRole('button', { name: 'Delete selected (2)' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete 2 tokens?' });
      await confirm.getByText(`${names[0]}, ${names[1]}`, { exact: false }).waitFor();
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await page.getByText('2 tokens deleted').waitFor();
      await row(page, names[0]).waitFor({ state: 'detached' });
      const left = (await tokens()).map((a) => a.id);
      expect(left).not.toContain(ids[0]);
      expect(left).not.toContain(ids[1]);
      expect(left).toContain(ids[2]);
      await row(page, names[2]).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows the server’s refusals beside their field (no name, an expiry in the past) and creates nothing', async () => {
    const before = (await tokens()).length;
    const { page, problems, close } = await openTokens({ width: 420, colorScheme: 'dark' });
    try {
      await page.getByRole('button', { name: 'New token' }).click();
      const dialog = page.getByRole('dialog', { name: 'New API token' });
      await dialog.getByRole('button', { name: 'Create token' }).click();
      const nameError = dialog.locator('.field-error[data-field="name"]');
      await nameError.waitFor();
      expect(await nameError.textContent()).toBe('must not be empty');
      expect(await dialog.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');

      await dialog.getByLabel('Name', { exact: true }).fill('too late');
      await dialog.getByLabel('Expires on', { exact: true }).fill('2001-01-01');
      await dialog.getByRole('button', { name: 'Create token' }).click();
      const expiryError = dialog.locator('.field-error[data-field="expiresAt"]');
      await expiryError.waitFor();
      expect(await expiryError.textContent()).toBe('must be in the future');
      expect(await dialog.locator('.form-error').count()).toBe(0);
      await screenshot(page, 'token-new-invalid-narrow-dark');

      // Escape closes the dialog; nothing was created.
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      expect((await tokens()).length).toBe(before);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
