import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { createNamespace, sidewaysOverflow, startDashboard, stopDashboard } from '../../support/dashboard';
import { expectStatus, type TestServer } from '../../support/server';
import { rulesKit } from '../../support/dashboard-rules';
import { unique } from '../../support/resources';

/**
 * The flag page's Evaluations section (Flipt's Analytics tab) in Chromium against a real server:
 * real evaluations through /evaluate/v1, then the counts the page reads from the same instance's
 * /metrics — the total, the variants as the API answered them, other namespaces kept apart — and
 * a server started with metrics turned off.
 */

describeBrowser('dashboard: flag evaluations (analytics)', () => {
  let server: TestServer;
  let off: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, off, browser } = await startDashboard({ server: {}, off: { PENNON_METRICS_ENABLED: 'false' } })));
  afterAll(() => stopDashboard(browser, server, off));

  const section = (page: Page) => page.locator('section.analytics');
  const stat = (page: Page, name: string) => section(page).locator(`[data-stat="${name}"]`);
  /** The bar list titled `title`: each row's key and its count. */
  const bars = (page: Page, title: string) =>
    section(page)
      .getByRole('list', { name: title })
      .locator('li')
      .evaluateAll((items) =>
        items.map((li) => {
          const el = li as unknown as { dataset: { key: string }; querySelector(s: string): { textContent: string | null } | null };
          return [el.dataset.key, Number(el.querySelector('.analytics-bar-number')?.textContent?.replace(/\D/g, ''))] as [string, number];
        }),
      );

  /** A variant flag in `ns` whose one rule (segment matching everyone) splits blue/green 50/50. */
  async function splitFlag(ns: string, key: string): Promise<void> {
    const kit = rulesKit(server, ns);
    const ids = await kit.variantFlag(key, ['blue', 'green']);
    const segment = await kit.segment(unique('everyone'));
    const rule = expectStatus(await server.api.post(`${kit.flagUrl(key)}/rules`, { segmentKey: segment, rank: 1 }), 200);
    for (const v of ['blue', 'green']) expectStatus(await server.api.post(`${kit.flagUrl(key)}/rules/${rule.id}/distributions`, { variantId: ids[v], rollout: 50 }), 200);
  }

  /** Evaluates `flag` once per entity with this namespaceKey; returns the variant keys answered, counted. */
  async function evaluate(namespaceKey: string, flag: string, entities: string[], tally: Record<string, number> = {}): Promise<Record<string, number>> {
    for (const entityId of entities) {
      const answer = expectStatus(await server.api.post('/evaluate/v1/variant', { namespaceKey, flagKey: flag, entityId, context: {} }), 200);
      expect(answer.reason).toBe('MATCH_EVALUATION_REASON');
      tally[answer.variantKey] = (tally[answer.variantKey] ?? 0) + 1;
    }
    return tally;
  }
  const entities = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  const sorted = (tally: Record<string, number>) => Object.entries(tally).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

  it("shows the flag's evaluations since the start — both spellings of the default namespace — by variant as the API answered, and follows new ones", async () => {
    const flag = unique('checkout');
    await splitFlag('default', flag);
    // 7 naming no namespace (''), 5 naming 'default': one flag, one count.
    const tally = await evaluate('', flag, entities('u', 7));
    await evaluate('default', flag, entities('v', 5), tally);
    expect(Object.keys(tally).sort()).toEqual(['blue', 'green']); // 12 entities land in both halves

    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/flags/${flag}`);
    try {
      await section(page).getByRole('heading', { name: 'Evaluations' }).waitFor();
      expect(await stat(page, 'evaluations').textContent()).toBe('12');
      expect(await stat(page, 'errors').textContent()).toBe('0');
      expect(await bars(page, 'By variant')).toEqual(sorted(tally));
      expect(await bars(page, 'By reason')).toEqual([['MATCH_EVALUATION_REASON', 12]]);
      await section(page).getByText('Match', { exact: true }).waitFor();
      expect(await stat(page, 'mean-latency').textContent()).toMatch(/^\d+(\.\d+)? (ms|s)$/);
      await section(page).getByRole('img', { name: /^Latency histogram: 0 ms or less: \d+/ }).waitFor();
      await section(page).getByText(/This instance's counts since it started/).waitFor();

      // More evaluations, then Refresh (from the keyboard): the count moves, and with two samples the sparkline appears.
      await evaluate('default', flag, entities('w', 4), tally);
      await section(page).getByRole('button', { name: 'Refresh' }).focus();
      await page.keyboard.press('Enter');
      await section(page).locator('[data-stat="evaluations"]', { hasText: /^16$/ }).waitFor();
      expect(await bars(page, 'By variant')).toEqual(sorted(tally));
      await section(page).getByRole('img', { name: /^Evaluations per interval over the last \d+ s \(\d+ intervals?\): latest \d+ in \d+ s, peak \d+\.$/ }).waitFor();
      expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement.textContent)).toBe('Refresh');

      // Without a click: the next 5-second sample (the section is in view) picks up 3 more.
      await evaluate('', flag, entities('x', 3), tally);
      await section(page).locator('[data-stat="evaluations"]', { hasText: /^19$/ }).waitFor({ timeout: 12_000 });
      await section(page).locator('[data-stat="last-interval"]').waitFor();
      await section(page).scrollIntoViewIfNeeded();
      await screenshot(page, 'flag-analytics');
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, 'flag-analytics-dark');

      // A narrow window: nothing wider than the page.
      await page.setViewportSize({ width: 390, height: 800 });
      await stat(page, 'evaluations').waitFor();
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, 'flag-analytics-narrow');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('counts a flag in another namespace under that namespace only', async () => {
    const flag = unique('shared-key');
    const ns = unique('team');
    await createNamespace(server.api, ns, `Team ${ns}`);
    await splitFlag('default', flag);
    await splitFlag(ns, flag);
    await evaluate('', flag, entities('a', 2));
    const there = await evaluate(ns, flag, entities('b', 5));

    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      expect(await stat(page, 'evaluations').textContent()).toBe('5');
      expect(await bars(page, 'By variant')).toEqual(sorted(there));
      await page.goto(`${server.url}/#/namespaces/default/flags/${flag}`);
      await section(page).locator('[data-stat="evaluations"]', { hasText: /^2$/ }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('says when a flag has no evaluations yet, with the console for it; a boolean flag is counted by value', async () => {
    const flag = unique('dark-mode');
    expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key: flag, name: 'Dark mode', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/flags/${flag}`);
    try {
      await section(page).getByText('No evaluations of this flag yet.').waitFor();
      const link = section(page).getByRole('link', { name: 'Evaluate it in the console' });
      expect(await link.getAttribute('href')).toBe(`#/namespaces/default/console?flag=${flag}`);
      await screenshot(page, 'flag-analytics-empty');

      for (const entityId of ['p', 'q', 'r']) {
        const answer = expectStatus(await server.api.post('/evaluate/v1/boolean', { namespaceKey: 'default', flagKey: flag, entityId, context: {} }), 200);
        expect([answer.enabled, answer.reason]).toEqual([true, 'DEFAULT_EVALUATION_REASON']);
      }
      await section(page).getByRole('button', { name: 'Refresh' }).click();
      await section(page).locator('[data-stat="evaluations"]', { hasText: /^3$/ }).waitFor();
      expect(await bars(page, 'By value')).toEqual([['true', 3]]);
      expect(await bars(page, 'By reason')).toEqual([['DEFAULT_EVALUATION_REASON', 3]]);
      expect(await link.count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('explains metrics.enabled on an instance started with PENNON_METRICS_ENABLED=false', async () => {
    expect((await off.api.get('/metrics')).status).toBe(404);
    const flag = unique('quiet');
    expectStatus(await off.api.post('/api/v1/namespaces/default/flags', { key: flag, name: 'Quiet', type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
    const { page, problems, close } = await openDashboard(browser, off.url, `/namespaces/default/flags/${flag}`);
    try {
      await section(page).getByText('Metrics are turned off on this instance.').waitFor();
      await section(page).getByText('metrics.enabled: false', { exact: true }).waitFor();
      expect(await section(page).locator('[data-stat]').count()).toBe(0);
      expect(await section(page).getByText(/This instance's counts/).count()).toBe(0);
      await screenshot(page, 'flag-analytics-off');
      expect(problems).toEqual([]); // the 404 is the answer expected, not a problem
    } finally {
      await close();
    }
  });
});
