import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, openDashboard, settled, type DashboardPage } from '../../support/browser';
import { createNamespace, logIn, rowKeys, startDashboard, stopDashboard, tokenAuth } from '../../support/dashboard';
import { unique } from '../../support/resources';
import { expectStatus, type ApiClient, type TestServer } from '../../support/server';

/**
 * The dashboard is live (issue 19): a flag page, the flag list, the segment list and the console
 * open in one browser show changes made through the API or in another browser within a second
 * (the console marks its answer out of date),
 * through the namespace's event stream — read with fetch and the client token in its
 * Authorization header (this server requires one). A form with unsaved edits keeps them and
 * offers to reload. A stream that cannot open falls back, reconnects, and reads once more.
 */

/** A change must show within this long of the API's answer (the stream, not a poll: that is 10 s). */
const LIVE_MS = 1000;

type Doc = { document: { querySelector(selector: string): Record<string, unknown> | null } };

/** Waits (the page checks on each frame) until the element's `value` or `textContent` is `expected`. */
function shows(page: Page, selector: string, prop: 'value' | 'textContent', expected: string, timeout = LIVE_MS) {
  // A function, not a string: the dashboard's CSP forbids eval.
  return page.waitForFunction(([s, p, v]) => (globalThis as unknown as Doc).document.querySelector(s)?.[p] === v, [selector, prop, expected] as const, { timeout });
}

describeBrowser('dashboard: live updates', () => {
  const BOOTSTRAP = 'live-dashboard-token';
  let server: TestServer;
  let browser: Browser;
  let api: ApiClient;
  beforeAll(async () => {
    ({ server, browser } = await startDashboard({ server: tokenAuth(BOOTSTRAP) }));
    api = server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
  });
  afterAll(() => stopDashboard(browser, server));

  /** A fresh browser context, logged in, on `hash`, its live updates open. */
  async function open(hash: string, before?: (page: Page) => Promise<void>): Promise<DashboardPage> {
    const opened = await openDashboard(browser, server.url, hash);
    await before?.(opened.page);
    await logIn(opened.page, BOOTSTRAP);
    await settled(opened.page);
    await live(opened.page);
    return opened;
  }

  /** Waits until the page's namespace stream is open (the header says "Live"). */
  const live = (page: Page, timeout = 5000) => page.locator('[data-live-status="live"]').waitFor({ timeout });

  async function flagIn(ns: string, key: string, name: string) {
    expectStatus(await api.post(`/api/v1/namespaces/${ns}/flags`, { key, name, description: 'Seeded' }), 200);
  }

  it('a flag page shows, within a second, a change made through the API and one made in a second browser', async () => {
    const ns = unique('live');
    await createNamespace(api, ns, 'Live');
    const key = unique('banner');
    await flagIn(ns, key, 'Banner');
    const a = await open(`/namespaces/${ns}/flags/${key}`);
    const b = await open(`/namespaces/${ns}/flags/${key}`);
    try {
      const nameA = a.page.getByLabel('Name', { exact: true });
      expect(await nameA.inputValue()).toBe('Banner');

      // Through the API: the heading and the untouched form follow.
      expectStatus(await api.put(`/api/v1/namespaces/${ns}/flags/${key}`, { name: 'Banner from the API', description: 'Seeded' }), 200);
      await a.page.getByRole('heading', { name: 'Banner from the API' }).waitFor({ timeout: LIVE_MS });
      await shows(a.page, 'input[name="name"]', 'value', 'Banner from the API');

      // In browser B: its save shows in A.
      await b.page.getByRole('heading', { name: 'Banner from the API' }).waitFor({ timeout: LIVE_MS });
      await b.page.getByLabel('Name', { exact: true }).fill('Banner from browser B');
      await b.page.getByRole('switch', { name: 'Enabled' }).check();
      await b.page.getByRole('button', { name: 'Save', exact: true }).click();
      await b.page.getByText(`Flag ${key} saved`).waitFor();
      await a.page.getByRole('heading', { name: 'Banner from browser B' }).waitFor({ timeout: LIVE_MS });
      await a.page.locator('.flag-summary').getByText('Enabled', { exact: true }).waitFor({ timeout: LIVE_MS });
      expect(await a.page.getByRole('switch', { name: 'Enabled' }).isChecked()).toBe(true);
      // B saved: no offer to reload there, its form shows what it saved.
      expect(await b.page.getByTestId('changed-elsewhere').count()).toBe(0);

      // A variant added through the API appears in the variants table.
      expectStatus(await api.post(`/api/v1/namespaces/${ns}/flags/${key}/variants`, { key: 'live-variant' }), 200);
      await a.page.locator('.variants-table tr[data-key="live-variant"]').waitFor({ timeout: LIVE_MS });
      expect([...a.problems, ...b.problems]).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a form with unsaved edits is not clobbered: it keeps them and offers to reload', async () => {
    const ns = unique('live');
    await createNamespace(api, ns, 'Live');
    const key = unique('edited');
    await flagIn(ns, key, 'Before');
    const { page, problems, close } = await open(`/namespaces/${ns}/flags/${key}`);
    try {
      const name = page.getByLabel('Name', { exact: true });
      await name.fill('My unsaved name');
      await page.getByLabel('Description', { exact: true }).fill('My unsaved description');

      expectStatus(await api.put(`/api/v1/namespaces/${ns}/flags/${key}`, { name: 'Changed elsewhere', description: 'Theirs' }), 200);
      const offer = page.getByTestId('changed-elsewhere');
      await offer.waitFor({ timeout: LIVE_MS });
      expect(await offer.textContent()).toContain('This flag changed elsewhere.');
      // The page around the form shows the new version; the user's input stays.
      await page.getByRole('heading', { name: 'Changed elsewhere' }).waitFor({ timeout: LIVE_MS });
      expect(await name.inputValue()).toBe('My unsaved name');
      expect(await page.getByLabel('Description', { exact: true }).inputValue()).toBe('My unsaved description');

      // Reload: the server's version, the offer gone.
      await offer.getByRole('button', { name: 'Reload' }).click();
      expect(await name.inputValue()).toBe('Changed elsewhere');
      expect(await page.getByLabel('Description', { exact: true }).inputValue()).toBe('Theirs');
      expect(await offer.count()).toBe(0);

      // Following again: a later change fills the untouched form.
      expectStatus(await api.put(`/api/v1/namespaces/${ns}/flags/${key}`, { name: 'Third', description: 'Theirs' }), 200);
      await shows(page, 'input[name="name"]', 'value', 'Third');

      // Deleted elsewhere: the page says so and keeps what it shows.
      expectStatus(await api.delete(`/api/v1/namespaces/${ns}/flags/${key}`), 200);
      await page.getByTestId('flag-gone').waitFor({ timeout: LIVE_MS });
      expect(await name.inputValue()).toBe('Third');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('the flag list shows a flag created and one deleted elsewhere; the segment list a segment', async () => {
    const ns = unique('live');
    await createNamespace(api, ns, 'Live');
    const first = `a-${unique('first')}`;
    await flagIn(ns, first, 'First');
    const { page, problems, close } = await open(`/namespaces/${ns}/flags`);
    try {
      expect(await rowKeys(page)).toEqual([first]);
      const second = `b-${unique('second')}`;
      await flagIn(ns, second, 'Second');
      await page.locator(`tbody tr[data-key="${second}"]`).waitFor({ timeout: LIVE_MS });
      expectStatus(await api.delete(`/api/v1/namespaces/${ns}/flags/${first}`), 200);
      await page.locator(`tbody tr[data-key="${first}"]`).waitFor({ state: 'detached', timeout: LIVE_MS });
      expect(await rowKeys(page)).toEqual([second]);

      // Segments are not named by the stream: the list reads again on any change to the namespace.
      await page.getByRole('link', { name: 'Segments' }).click();
      await page.getByText('No segments yet.').waitFor();
      const seg = unique('seg');
      expectStatus(await api.post(`/api/v1/namespaces/${ns}/segments`, { key: seg, name: 'Live segment' }), 200);
      await page.locator(`tbody tr[data-key="${seg}"]`).waitFor({ timeout: LIVE_MS });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('the console marks its answer out of date when its flag changes elsewhere, and evaluates it again on request', async () => {
    const ns = unique('live');
    await createNamespace(api, ns, 'Live');
    const key = unique('switch');
    expectStatus(await api.post(`/api/v1/namespaces/${ns}/flags`, { key, name: 'Switch', type: 'BOOLEAN_FLAG_TYPE', enabled: false }), 200);
    const { page, problems, close } = await open(`/namespaces/${ns}/console?flag=${key}`);
    try {
      await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
      const value = page.getByTestId('console-result').getByTestId('result-value');
      await shows(page, '[data-testid="result-value"]', 'textContent', 'false', 10_000);
      expectStatus(await api.put(`/api/v1/namespaces/${ns}/flags/${key}`, { name: 'Switch', enabled: true }), 200);
      const stale = page.getByTestId('console-stale');
      await stale.waitFor({ timeout: LIVE_MS });
      expect(await value.textContent()).toBe('false');
      await stale.getByRole('button', { name: 'Evaluate this request again' }).click();
      await shows(page, '[data-testid="result-value"]', 'textContent', 'true', 10_000);
      await stale.waitFor({ state: 'detached' });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a stream that cannot open: the page says so, reconnects after a short wait and reads what changed meanwhile', async () => {
    const ns = unique('live');
    await createNamespace(api, ns, 'Live');
    let refused = 0;
    let released = false;
    const opened = await openDashboard(browser, server.url, `/namespaces/${ns}/flags`);
    const { page, close } = opened;
    try {
      // The first attempts fail (as a proxy that refuses streams would) until the test lets them through.
      await page.route('**/events', async (route) => {
        if (released) return route.fallback();
        refused++;
        return route.abort('connectionrefused');
      });
      await logIn(page, BOOTSTRAP);
      await page.locator('[data-live-status="offline"]').waitFor();
      await page.getByText(`No flags in namespace ${ns} yet.`).waitFor();
      // Changed while the stream is down…
      const key = unique('meanwhile');
      await flagIn(ns, key, 'Meanwhile');
      released = true;
      // …read once the stream is back (the first retry comes after about a second).
      await live(page, 10_000);
      await page.locator(`tbody tr[data-key="${key}"]`).waitFor({ timeout: LIVE_MS });
      expect(refused).toBeGreaterThanOrEqual(1);
    } finally {
      await close();
    }
  });
});
