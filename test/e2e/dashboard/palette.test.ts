import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { describeBrowser, launchBrowser, openDashboard, screenshot, settled } from '../../support/browser';
import { expectStatus, startServer, type TestServer } from '../../support/server';

/**
 * The command palette (Ctrl+K), Getting started, and the flag page's way into the console, in
 * Chromium against a real server: what the page shows, and where it leads.
 */

/** A key of its own per attempt: a retried test runs against the same server. */
const unique = (key: string) => `${key}-${Date.now().toString(36)}`;

/** Opens the palette with the keyboard and waits until the namespace's flags and segments are in. */
async function openPalette(page: Page): Promise<{ dialog: Locator; input: Locator }> {
  await page.keyboard.press('Control+k');
  const dialog = page.getByRole('dialog', { name: 'Command palette' });
  await dialog.waitFor();
  await dialog.locator('[role="listbox"]:not([aria-busy])').waitFor();
  return { dialog, input: dialog.getByRole('combobox') };
}

async function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => (el as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement === el);
}

describeBrowser('dashboard: command palette, getting started', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function createFlag(ns: string, key: string, name: string) {
    expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key, name, type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
  }

  it('opens with Ctrl+K, finds a flag by its key, and Enter opens the flag’s page', async () => {
    const key = unique('palette-flag');
    await createFlag('default', key, 'Palette flag');
    const segment = unique('palette-segment');
    expectStatus(await server.api.post('/api/v1/namespaces/default/segments', { key: segment, name: 'Palette segment', matchType: 'ALL_MATCH_TYPE' }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, '/namespaces/default/segments');
    try {
      const { dialog, input } = await openPalette(page);
      expect(await isFocused(input)).toBe(true);
      // Places, this namespace's flags and segments, themes; the current namespace is not offered.
      const options = dialog.getByRole('option');
      const texts = await options.allTextContents();
      for (const place of ['Flags', 'Segments', 'Console', 'Namespaces', 'API tokens', 'Settings', 'Getting started']) expect(texts).toContainEqual(expect.stringContaining(`Go to ${place}`));
      expect(texts).toContainEqual(expect.stringContaining(key));
      expect(texts).toContainEqual(expect.stringContaining(segment));
      expect(texts).toContainEqual(expect.stringContaining('Change theme: dark'));
      expect(texts).not.toContainEqual(expect.stringContaining('Switch namespace to default'));
      await screenshot(page, 'palette-open');

      // ↓ and ↑ move the selection (wrapping round); the search box points at it; Tab keeps the focus inside.
      await input.fill('palette');
      expect(await options.count()).toBeGreaterThanOrEqual(2);
      const first = options.first();
      expect(await first.getAttribute('aria-selected')).toBe('true');
      await page.keyboard.press('ArrowDown');
      expect(await options.nth(1).getAttribute('aria-selected')).toBe('true');
      expect(await first.getAttribute('aria-selected')).toBe('false');
      expect(await input.getAttribute('aria-activedescendant')).toBe(await options.nth(1).getAttribute('id'));
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('ArrowUp');
      expect(await options.last().getAttribute('aria-selected')).toBe('true');
      await page.keyboard.press('Tab');
      expect(await isFocused(input)).toBe(true);

      // The key typed: the flag comes first, selected.
      await input.fill(key);
      expect(await first.textContent()).toContain(key);
      expect(await first.getAttribute('aria-selected')).toBe('true');
      expect(await input.getAttribute('aria-activedescendant')).toBe(await first.getAttribute('id'));
      await screenshot(page, 'palette-search');

      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`#/namespaces/default/flags/${key}$`));
      await page.getByRole('heading', { name: 'Palette flag', level: 1 }).waitFor();
      await dialog.waitFor({ state: 'hidden' });

      // A segment, by letters of its name (fuzzy), with the mouse.
      await openPalette(page);
      await input.fill('palsegm');
      await dialog.getByRole('option', { name: new RegExp(segment) }).click();
      await page.waitForURL(new RegExp(`#/namespaces/default/segments/${segment}$`));
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('switches namespace and theme from the header’s button; Escape closes without doing anything', async () => {
    const ns = unique('palette-ns');
    expectStatus(await server.api.post('/api/v1/namespaces', { key: ns, name: 'Palette space' }), 200);
    const theirs = unique('their-flag');
    await createFlag(ns, theirs, 'Their flag');
    const { page, problems, close } = await openDashboard(browser, server.url, '/namespaces/default/flags');
    try {
      await page.getByRole('button', { name: /^Search…/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Command palette' });
      const input = dialog.getByRole('combobox');
      await input.fill(`switch ${ns}`);
      expect(await dialog.getByRole('option').first().textContent()).toContain(`Switch namespace to ${ns}`);
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`#/namespaces/${ns}/flags$`));
      expect(await page.getByLabel('Namespace', { exact: true }).inputValue()).toBe(ns);
      await page.getByRole('row', { name: new RegExp(theirs) }).waitFor();

      // Opened again, it lists the new namespace's flags, and offers default back.
      await openPalette(page);
      const texts = await dialog.getByRole('option').allTextContents();
      expect(texts).toContainEqual(expect.stringContaining(theirs));
      expect(texts).toContainEqual(expect.stringContaining('Switch namespace to default'));
      await input.fill('theme dark');
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'hidden' });
      expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
      expect(await page.getByRole('button', { name: 'Theme: dark' }).count()).toBe(1);

      // Escape: closed, nothing run, focus back where it was.
      await page.getByRole('link', { name: 'Segments', exact: true }).focus();
      await openPalette(page);
      await input.fill('theme light');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
      expect(await isFocused(page.getByRole('link', { name: 'Segments', exact: true }))).toBe(true);

      // Narrow window, dark theme.
      await page.setViewportSize({ width: 400, height: 760 });
      await openPalette(page);
      await input.fill('flag');
      await screenshot(page, 'palette-narrow-dark');
      await input.fill('getting');
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`#/namespaces/${ns}/getting-started$`));
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('Getting started: reached from an empty flags list, its curl example is for this server and namespace, its links lead to their screens', async () => {
    const ns = unique('start');
    expectStatus(await server.api.post('/api/v1/namespaces', { key: ns, name: 'Start' }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags`);
    try {
      await page.getByRole('main').getByRole('link', { name: 'Getting started' }).click();
      await page.waitForURL(new RegExp(`#/namespaces/${ns}/getting-started$`));
      await page.getByRole('heading', { name: 'Getting started', level: 1 }).waitFor();
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Getting started' }).getAttribute('aria-current')).toBe('page');

      const body = { namespaceKey: ns, flagKey: 'my-flag', entityId: 'user-42', context: { plan: 'pro' } };
      const curl = await page.getByTestId('start-curl').textContent();
      expect(curl).toBe(
        [`curl -sS -X POST ${server.url}/evaluate/v1/variant`, `-H 'Content-Type: application/json'`, `-d '${JSON.stringify(body)}'`].join(' \\\n  '),
      );
      expect(await page.getByTestId('start-pennon').textContent()).toBe(
        `pennon evaluate my-flag --namespace ${ns} --entity-id user-42 --context plan=pro --address ${server.url}`,
      );
      await screenshot(page, 'getting-started');

      // The example's request is one the server answers, once the namespace has the flag.
      await createFlag(ns, 'my-flag', 'My flag');
      expect(expectStatus(await server.api.post('/evaluate/v1/variant', body), 200)).toMatchObject({ flagKey: 'my-flag' });

      const main = page.getByRole('main');
      const hrefs: [string, string][] = [
        ['New flag', `#/namespaces/${ns}/flags/new`],
        ['New segment', `#/namespaces/${ns}/segments/new`],
        ['Choose a flag', `#/namespaces/${ns}/flags`],
        ['Open the console', `#/namespaces/${ns}/console`],
        ['API tokens', '#/settings/tokens'],
      ];
      for (const [name, href] of hrefs) expect(await main.getByRole('link', { name, exact: true }).getAttribute('href')).toBe(href);
      await main.getByRole('link', { name: 'New flag', exact: true }).click();
      await page.waitForURL(new RegExp(`#/namespaces/${ns}/flags/new$`));
      await page.goBack();
      await main.getByRole('link', { name: 'Open the console', exact: true }).click();
      await page.getByRole('heading', { name: 'Console', level: 1 }).waitFor();
      await page.goBack();
      await main.getByRole('link', { name: 'API tokens', exact: true }).click();
      await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
      await page.goBack();
      await settled(page);

      // Another namespace from the switcher: the same page, its example follows.
      await page.getByLabel('Namespace', { exact: true }).selectOption('default');
      await page.waitForURL(/#\/namespaces\/default\/getting-started$/);
      expect(await page.getByTestId('start-curl').textContent()).toContain('"namespaceKey":"default"');

      await page.setViewportSize({ width: 400, height: 900 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, 'getting-started-narrow-dark');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('the flag page’s “Evaluate in console” opens the console with the flag chosen', async () => {
    const key = unique('to-console');
    await createFlag('default', key, 'To console');
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/flags/${key}`);
    try {
      await page.getByRole('link', { name: 'Evaluate in console' }).click();
      await page.waitForURL(new RegExp(`#/namespaces/default/console\\?flag=${key}$`));
      await settled(page);
      expect(await page.getByRole('combobox', { name: 'Flag' }).inputValue()).toBe(key);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
