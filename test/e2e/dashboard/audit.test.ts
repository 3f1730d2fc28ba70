import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot, settled, type DashboardPage } from '../../support/browser';
import { createNamespace, logIn, startDashboard, stopDashboard, tokenAuth } from '../../support/dashboard';
import { unique } from '../../support/resources';
import { expectStatus, type ApiClient, type TestServer } from '../../support/server';

/**
 * The audit trail in the dashboard (issue 20), in Chromium against a real server that requires
 * tokens: a change made through the API by token "alice" shows in the flag's History — who,
 * what, the door, the fields it changed — and in the namespace's Audit screen (filters, load
 * more); a change made while the page is open appears there through the live stream; a change
 * saved in the dashboard is filed under the source "dashboard"; a segment's History; the
 * console's answer links the flag's last change.
 */

const BOOTSTRAP = 'audit-dashboard-bootstrap';
/** A change must show within this long of the API's answer: the live stream, not the 10 s fallback poll. */
const LIVE_MS = 2000;

describeBrowser('dashboard: audit trail', () => {
  let server: TestServer;
  let browser: Browser;
  let admin: ApiClient;
  let alice: ApiClient;
  beforeAll(async () => {
    ({ server, browser } = await startDashboard({ server: tokenAuth(BOOTSTRAP) }));
    admin = server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
    const made = expectStatus(await admin.post('/auth/v1/method/token', { name: 'alice', description: 'audit test' }), 200);
    alice = server.api.withHeaders({ authorization: `Bearer ${made.clientToken}` });
  });
  afterAll(() => stopDashboard(browser, server));

  /** A fresh browser context, logged in as the bootstrap token, on `hash`, its live stream open. */
  async function open(hash: string): Promise<DashboardPage> {
    const opened = await openDashboard(browser, server.url, hash);
    await logIn(opened.page, BOOTSTRAP);
    await settled(opened.page);
    await opened.page.locator('[data-live-status="live"]').waitFor({ timeout: 5000 });
    return opened;
  }

  /** The entries of a list, as their sentences. */
  const sentences = (scope: Page | Locator) => scope.getByTestId('audit-what').allTextContents();

  /** An entry's diff as [field, before, after] (or [field, value]) rows. */
  const diffRows = (entry: Locator) =>
    entry.locator('[data-testid="audit-diff"] tbody tr').evaluateAll((rows) => rows.map((r) => Array.from((r as unknown as { cells: { textContent: string }[] }).cells, (c) => c.textContent)));

  /** A flag made and changed by alice through the API: created, a variant, then renamed, enabled and given metadata. */
  async function seedFlag(ns: string): Promise<string> {
    const key = unique('checkout');
    const p = `/api/v1/namespaces/${ns}`;
    expectStatus(await alice.post(`${p}/flags`, { key, name: 'Checkout', type: 'VARIANT_FLAG_TYPE' }), 200);
    expectStatus(await alice.post(`${p}/flags/${key}/variants`, { key: 'blue', name: 'Blue' }), 200);
    expectStatus(await alice.put(`${p}/flags/${key}`, { name: 'Checkout v2', description: '', enabled: true, metadata: { team: 'growth' } }), 200);
    return key;
  }

  it("a flag's History: who, what, the door and the fields changed; live; a dashboard save filed under dashboard", async () => {
    const ns = unique('audit');
    await createNamespace(admin, ns, 'Audit');
    const key = await seedFlag(ns);
    const { page, problems, close } = await open(`/namespaces/${ns}/flags/${key}`);
    try {
      const history = page.getByTestId('history');
      await history.getByTestId('audit-entry').first().waitFor();
      expect(await sentences(history)).toEqual([`alice updated flag ${key}`, `alice created variant blue of flag ${key}`, `alice created flag ${key}`]);
      const updated = history.getByTestId('audit-entry').first();
      expect(await updated.getByTestId('audit-source').textContent()).toBe('API');
      expect(await updated.locator('time').textContent()).toBe('just now');
      // Changed fields only (not updatedAt, not the untouched variants), nested metadata by its field.
      expect(await diffRows(updated)).toEqual([
        ['name', '"Checkout"', '"Checkout v2"'],
        ['enabled', 'false', 'true'],
        ['metadata.team', '—', '"growth"'],
      ]);
      // A create: the new object's fields, one column.
      const created = history.getByTestId('audit-entry').nth(1);
      expect(await created.locator('thead th').allTextContents()).toEqual(['Field', 'Value']);
      expect(await diffRows(created)).toContainEqual(['key', '"blue"']);

      // Made while the page is open: on top of the History through the live stream.
      const variantId = expectStatus(await alice.get(`/api/v1/namespaces/${ns}/flags/${key}`), 200).variants[0].id;
      expectStatus(await alice.put(`/api/v1/namespaces/${ns}/flags/${key}/variants/${variantId}`, { key: 'blue', name: 'Bright blue' }), 200);
      await history.getByText(`alice updated variant blue of flag ${key}`).waitFor({ timeout: LIVE_MS });
      expect(await diffRows(history.getByTestId('audit-entry').first())).toEqual([['name', '"Blue"', '"Bright blue"']]);

      // Saved in the dashboard: the bootstrap token's change, through the door "dashboard".
      await page.getByLabel('Description', { exact: true }).fill('Saved in the browser');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText(`Flag ${key} saved`).waitFor();
      await history.getByText(`initial_bootstrap_token updated flag ${key}`).waitFor({ timeout: LIVE_MS });
      const saved = history.getByTestId('audit-entry').first();
      expect(await saved.getByTestId('audit-source').textContent()).toBe('dashboard');
      expect(await diffRows(saved)).toEqual([['description', '""', '"Saved in the browser"']]);
      // The server agrees: the event's source is dashboard.
      const [newest] = expectStatus(await admin.get(`/api/v1/namespaces/${ns}/audit/events?limit=1`), 200).events;
      expect([newest.source, newest.action, newest.key]).toEqual(['dashboard', 'updated', key]);
      await screenshot(page, 'flag-history');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("a segment's History: its constraints' changes, named by property", async () => {
    const ns = unique('audit');
    await createNamespace(admin, ns, 'Audit');
    const seg = unique('pro');
    const p = `/api/v1/namespaces/${ns}/segments`;
    expectStatus(await alice.post(p, { key: seg, name: 'Pro', matchType: 'ALL_MATCH_TYPE' }), 200);
    const c = expectStatus(await alice.post(`${p}/${seg}/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro' }), 200);
    // A flag with the segment's key: not part of the segment's History.
    expectStatus(await alice.post(`/api/v1/namespaces/${ns}/flags`, { key: seg, name: 'Same key', type: 'VARIANT_FLAG_TYPE' }), 200);
    const { page, problems, close } = await open(`/namespaces/${ns}/segments/${seg}`);
    try {
      const history = page.getByTestId('history');
      await history.getByTestId('audit-entry').first().waitFor();
      expect(await sentences(history)).toEqual([`alice created a constraint on plan of segment ${seg}`, `alice created segment ${seg}`]);
      expectStatus(await alice.put(`${p}/${seg}/constraints/${c.id}`, { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'enterprise' }), 200);
      await history.getByText(`alice updated a constraint on plan of segment ${seg}`).waitFor({ timeout: LIVE_MS });
      expect(await diffRows(history.getByTestId('audit-entry').first())).toEqual([['value', '"pro"', '"enterprise"']]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('the Audit screen: every event of the namespace, filters, load more, live', async () => {
    const ns = unique('audit');
    await createNamespace(admin, ns, 'Audit');
    const key = await seedFlag(ns);
    // 30 segments: with the flag's three events and the namespace's own, more than one page of 25.
    for (let i = 0; i < 30; i++) expectStatus(await admin.post(`/api/v1/namespaces/${ns}/segments`, { key: `s${String(i).padStart(2, '0')}`, name: 'S', matchType: 'ALL_MATCH_TYPE' }), 200);
    const { page, problems, close } = await open(`/namespaces/${ns}/audit`);
    try {
      await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).getAttribute('aria-current')).toBe('page');
      const entries = page.getByTestId('audit-entry');
      await entries.first().waitFor();
      expect(await entries.count()).toBe(25);
      expect((await sentences(page))[0]).toBe('initial_bootstrap_token created segment s29');
      await page.getByRole('button', { name: 'Load more' }).click();
      await entries.nth(33).waitFor();
      expect(await entries.count()).toBe(34);
      expect((await sentences(page)).slice(-4)).toEqual([`alice updated flag ${key}`, `alice created variant blue of flag ${key}`, `alice created flag ${key}`, `initial_bootstrap_token created namespace ${ns}`]);
      expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);

      // Filters: the actor, then the action (applied as chosen), kept in the address.
      await page.getByLabel('Actor', { exact: true }).fill('alice');
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.waitForURL(/\/audit\?actor=alice$/);
      await page.waitForFunction(() => (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll('[data-testid="audit-entry"]').length === 3);
      await page.getByLabel('Action', { exact: true }).selectOption('updated');
      await page.waitForURL(/action=updated/);
      await page.waitForFunction(() => (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll('[data-testid="audit-entry"]').length === 1);
      expect(await sentences(page)).toEqual([`alice updated flag ${key}`]);
      // The object links to its page.
      expect(await page.getByRole('link', { name: `flag ${key}` }).getAttribute('href')).toBe(`#/namespaces/${ns}/flags/${key}`);

      // A type and a key with no match say so.
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Segments and their constraints' });
      await page.getByLabel('Key', { exact: true }).fill(key);
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.getByText('No change matches these filters.').waitFor();

      // Cleared, then a change made elsewhere while the screen is open: on top, through the live stream.
      await page.getByRole('button', { name: 'Clear' }).click();
      await entries.nth(24).waitFor();
      expectStatus(await alice.delete(`/api/v1/namespaces/${ns}/segments/s00`), 200);
      await page.getByText('alice deleted segment s00').waitFor({ timeout: LIVE_MS });
      expect((await sentences(page))[0]).toBe('alice deleted segment s00');
      expect(await diffRows(entries.first())).toEqual([
        ['key', '"s00"'],
        ['name', '"S"'],
        ['matchType', '"ALL_MATCH_TYPE"'],
        ['namespaceKey', `"${ns}"`],
      ]);
      await screenshot(page, 'audit-screen');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("the console's answer links the flag's last change, picked out in the flag's History", async () => {
    const ns = unique('audit');
    await createNamespace(admin, ns, 'Audit');
    const key = await seedFlag(ns);
    const [last] = expectStatus(await admin.get(`/api/v1/namespaces/${ns}/audit/events?key=${key}&limit=1`), 200).events;
    const { page, problems, close } = await open(`/namespaces/${ns}/console?flag=${key}`);
    try {
      await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
      const change = page.getByTestId('result-last-change');
      await change.getByRole('link').waitFor();
      expect(await change.getByRole('link').textContent()).toBe(`alice updated flag ${key}`);
      await change.getByRole('link').click();
      await page.waitForURL(new RegExp(`#/namespaces/${ns}/flags/${key}\\?event=${last.id}$`));
      const picked = page.locator('[data-testid="audit-entry"][aria-current="true"]');
      await picked.waitFor();
      expect(await picked.getAttribute('data-event-id')).toBe(last.id);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
