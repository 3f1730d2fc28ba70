import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { sidewaysOverflow, startDashboard, stopDashboard } from '../../support/dashboard';
import { expectStatus, type TestServer } from '../../support/server';

/** The frame every screen shares: read-only banner, navigation, keyboard, themes, narrow windows, speed. */
describeBrowser('dashboard: shell', () => {
  let server: TestServer;
  let readOnly: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, readOnly, browser } = await startDashboard({ server: {}, readOnly: { PENNON_STORAGE_READ_ONLY: 'true' } })));
  afterAll(() => stopDashboard(browser, server, readOnly));

  it('shows the read-only banner and offers no writes when /meta/info says storage is read-only', async () => {
    expect(expectStatus(await readOnly.api.get('/meta/info'), 200).storage).toEqual({ type: 'database', readOnly: true });
    const { page, problems, close } = await openDashboard(browser, readOnly.url, '/settings/namespaces');
    try {
      const banner = page.getByTestId('read-only-banner');
      await banner.waitFor();
      expect(await banner.textContent()).toContain('storage.read_only');
      await page.getByRole('row', { name: /default/ }).waitFor();
      expect(await page.getByRole('link', { name: 'New namespace' }).count()).toBe(0);
      await screenshot(page, 'read-only-banner');
      // An instance that accepts writes shows no banner.
      const writable = await openDashboard(browser, server.url, '/settings/namespaces');
      await writable.page.getByRole('row', { name: /default/ }).waitFor();
      expect(await writable.page.getByTestId('read-only-banner').count()).toBe(0);
      await writable.close();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('routes / to the flags of the current namespace and reaches every screen from the navigation', async () => {
    const { page, problems, close } = await openDashboard(browser, server.url, '/');
    try {
      await page.waitForURL(/#\/namespaces\/default\/flags$/);
      for (const [link, title] of [
        ['Flags', 'Flags'],
        ['Segments', 'Segments'],
        ['Console', 'Console'],
        ['API tokens', 'API tokens'],
      ]) {
        await page.getByRole('link', { name: link, exact: true }).click();
        await page.getByRole('heading', { name: title, level: 1 }).waitFor();
      }
      await page.goto(`${server.url}/#/no/such/screen`);
      await page.getByRole('heading', { name: 'Not found', level: 1 }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('works from the keyboard: skip link first, visible focus', async () => {
    const { page, close } = await openDashboard(browser, server.url, '/settings/namespaces');
    try {
      await page.getByRole('row', { name: /default/ }).waitFor();
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement.textContent)).toBe('Skip to content');
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id)).toBe('main');
      // Tab onwards reaches the "New namespace" action, drawn with a focus ring.
      await page.keyboard.press('Tab');
      const outline = await page.evaluate(() => {
        const g = globalThis as unknown as { document: { activeElement: unknown }; getComputedStyle(e: unknown): { outlineStyle: string } };
        return g.getComputedStyle(g.document.activeElement).outlineStyle;
      });
      expect(outline).toBe('solid');
    } finally {
      await close();
    }
  });

  it('reads in a narrow window and in the dark theme', async () => {
    const narrow = await openDashboard(browser, server.url, '/settings/namespaces', { width: 390, height: 800 });
    await narrow.page.getByRole('row', { name: /default/ }).waitFor();
    // Nothing wider than the window but the table, which scrolls in its own box.
    expect(await sidewaysOverflow(narrow.page)).toBeLessThanOrEqual(0);
    await screenshot(narrow.page, 'narrow-namespaces');
    await narrow.close();

    const dark = await openDashboard(browser, server.url, '/settings/namespaces', { colorScheme: 'dark' });
    await dark.page.getByRole('row', { name: /default/ }).waitFor();
    const background = await dark.page.evaluate(() => {
      const g = globalThis as unknown as { document: { body: unknown }; getComputedStyle(e: unknown): { backgroundColor: string } };
      return g.getComputedStyle(g.document.body).backgroundColor;
    });
    expect(background).toBe('rgb(18, 20, 23)');
    await screenshot(dark.page, 'dark-namespaces');
    // The toggle overrides the system: system → light.
    await dark.page.getByRole('button', { name: 'Theme: system' }).click();
    await dark.page.getByRole('button', { name: 'Theme: light' }).waitFor();
    expect(await dark.page.evaluate(() => (globalThis as unknown as { document: { documentElement: { dataset: { theme?: string } } } }).document.documentElement.dataset.theme)).toBe('light');
    await dark.close();
  });

  it('paints and becomes usable quickly on loopback (reported, loosely bounded)', async () => {
    // A first visit (empty cache) of a data screen: from navigation to the namespaces table on screen.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const close = () => context.close();
    try {
      const started = Date.now();
      await page.goto(`${server.url}/#/settings/namespaces`);
      await page.getByRole('row', { name: /default/ }).waitFor();
      const usable = Date.now() - started;
      const timing = await page.evaluate(() => {
        const perf = (globalThis as unknown as { performance: { getEntriesByName(n: string): { startTime: number }[]; getEntriesByType(t: string): { transferSize: number; name: string }[] } }).performance;
        const scripts = perf.getEntriesByType('resource').filter((r) => r.name.endsWith('.js'));
        return {
          firstContentfulPaint: Math.round(perf.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1),
          scriptBytesOnTheWire: scripts.reduce((sum, r) => sum + r.transferSize, 0),
        };
      });
      console.log(`dashboard timing on loopback: ${JSON.stringify({ ...timing, usableMs: usable })}`);
      expect(timing.firstContentfulPaint).toBeGreaterThan(0);
      // The aim is well under 1 s; the bounds leave room for a busy 2-core machine.
      expect(timing.firstContentfulPaint).toBeLessThan(3000);
      expect(usable).toBeLessThan(5000);
      expect(timing.scriptBytesOnTheWire).toBeLessThan(300 * 1024);
    } finally {
      await close();
    }
  });
});
