import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { logIn, sidewaysOverflow, startDashboard, stopDashboard, tokenAuth } from '../../support/dashboard';
import { unique } from '../../support/resources';
import { expectStatus, type TestServer } from '../../support/server';

/**
 * A phone's width (390 px, an iPhone's): the top bar — with the account menu (who is signed in,
 * "Log out"), since this server wants a token — keeps every control on screen, and a table too wide for the window keeps its row
 * actions in sight and shows that it scrolls.
 */
const BOOTSTRAP = 'narrow-bootstrap-secret';

type Geometry = { left: number; right: number; top: number; bottom: number; hit: boolean };

/** Where `control` is, and whether the point at its centre is the control itself (or inside it). */
const geometry = (control: Locator): Promise<Geometry> =>
  control.evaluate((el) => {
    const g = globalThis as unknown as { document: { elementFromPoint(x: number, y: number): unknown } };
    const e = el as unknown as { getBoundingClientRect(): { left: number; right: number; top: number; bottom: number }; contains(o: unknown): boolean };
    const r = e.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, hit: e.contains(g.document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2)) };
  });

function expectOnScreen(g: Geometry, width: number, what: string) {
  expect(g.left, `${what} starts inside the window`).toBeGreaterThanOrEqual(0);
  expect(g.right, `${what} ends inside the window`).toBeLessThanOrEqual(width);
  expect(g.hit, `${what} is not covered`).toBe(true);
}

describeBrowser('dashboard: a phone’s width', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, browser } = await startDashboard({ server: tokenAuth(BOOTSTRAP) })));
  afterAll(() => stopDashboard(browser, server));

  async function openLoggedIn(hash: string, width: number): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
    const opened = await openDashboard(browser, server.url, hash, { width, height: 740 });
    await logIn(opened.page, BOOTSTRAP);
    await opened.page.getByRole('button', { name: /^Account: / }).waitFor();
    return opened;
  }

  it('the top bar fits: every control inside the window and uncovered, still named; the page does not scroll sideways', async () => {
    for (const width of [390, 320]) {
      const { page, problems, close } = await openLoggedIn('/namespaces/default/flags', width);
      try {
        await page.getByRole('heading', { name: 'Flags', level: 1 }).waitFor();
        const controls = page.locator('header.topbar').locator('a, button, select');
        expect(await controls.count()).toBe(5);
        for (const control of await controls.all()) expectOnScreen(await geometry(control), width, `${await control.textContent()} at ${width} px`);
        // Each keeps its name for assistive technology, icons or not.
        for (const named of [
          page.getByRole('link', { name: 'Pennon' }),
          page.getByRole('combobox', { name: 'Namespace' }),
          page.getByRole('button', { name: /^Search…/ }),
          page.getByRole('button', { name: 'Theme: system' }),
          page.getByRole('button', { name: 'Account: initial_bootstrap_token, admin' }),
        ])
          expect(await named.count()).toBe(1);
        expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
        if (width === 390) await screenshot(page, 'narrow-top-bar');
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    }
  });

  it('the variants table keeps each row’s Edit and Delete on screen and shows that it scrolls', async () => {
    const flag = unique('wide');
    const url = `/api/v1/namespaces/default/flags/${flag}`;
    const api = server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
    expectStatus(await api.post('/api/v1/namespaces/default/flags', { key: flag, name: 'Wide' }), 200);
    for (const colour of ['blue', 'green']) {
      const attachment = JSON.stringify({ colour, weight: 3, note: 'a longer attachment than fits' });
      expectStatus(await api.post(`${url}/variants`, { key: `${colour}-variant-with-a-long-key`, name: `The ${colour} one`, description: 'A description long enough to need room', attachment }), 200);
    }
    const { page, problems, close } = await openLoggedIn(`/namespaces/default/flags/${flag}`, 390);
    try {
      const table = page.locator('.variants-table');
      await table.locator('tbody tr').nth(1).waitFor();
      const box = page.locator('.table-box', { has: table });
      const wrap = box.locator('.table-wrap');
      const scrolled = () => wrap.evaluate((w) => (w as unknown as { scrollLeft: number }).scrollLeft);
      // Each row's buttons are on screen as the page opens: the row brought into view by its key
      // (the left cell), nothing scrolled sideways to find them.
      for (const key of ['blue-variant-with-a-long-key', 'green-variant-with-a-long-key']) {
        await table.locator(`tr[data-key="${key}"] td`).first().scrollIntoViewIfNeeded();
        for (const action of ['Edit', 'Delete']) expectOnScreen(await geometry(page.getByRole('button', { name: `${action} variant ${key}` })), 390, `${action} ${key}`);
      }
      expect(await scrolled()).toBe(0);
      // It does scroll sideways (the columns are wider than the window), and says so.
      expect(await wrap.evaluate((w) => (w as unknown as { scrollWidth: number; clientWidth: number }).scrollWidth - (w as unknown as { clientWidth: number }).clientWidth)).toBeGreaterThan(50);
      expect(await box.getAttribute('data-more-end')).toBe('');
      const shade = (cell: Locator) =>
        cell.evaluate((td) => (globalThis as unknown as { getComputedStyle(e: unknown, p: string): { opacity: string } }).getComputedStyle(td, '::before').opacity);
      expect(await shade(table.locator('td.row-actions').first())).toBe('1');
      await screenshot(page, 'narrow-variants');
      await page.getByRole('button', { name: 'Edit variant green-variant-with-a-long-key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit variant green-variant-with-a-long-key' });
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });

      // Scrolled to its end: the shade moves to the start.
      await wrap.evaluate((w) => {
        const el = w as unknown as { scrollLeft: number; scrollWidth: number };
        el.scrollLeft = el.scrollWidth;
      });
      await page.waitForFunction((el) => (el as unknown as { hasAttribute(n: string): boolean }).hasAttribute('data-more-start') && !(el as unknown as { hasAttribute(n: string): boolean }).hasAttribute('data-more-end'), await box.elementHandle(), {
        timeout: 5000,
      });
      expect(await shade(table.locator('td.row-actions').first())).toBe('0');
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
