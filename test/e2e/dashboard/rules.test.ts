import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, launchBrowser, openDashboard, screenshot } from '../../support/browser';
import { expectStatus, startTestServer, type TestServer } from '../../support/server';

/**
 * Rules (variant flags) and rollouts (boolean flags) on the flag page, in Chromium, against a
 * real server: what the page shows and what the API then holds — distributions, ranks, rollouts.
 */

/** A key of its own per attempt: a retried test runs against the same server. */
let serial = 0;
const unique = (key: string) => `${key}-${Date.now().toString(36)}${(serial++).toString(36)}`;

interface Rule {
  id: string;
  rank: number;
  segmentKey: string;
  segmentKeys: string[];
  segmentOperator: string;
  distributions: { id: string; variantId: string; rollout: number }[];
}
interface Rollout {
  id: string;
  rank: number;
  type: string;
  description: string;
  threshold?: { percentage: number; value: boolean };
  segment?: { segmentKey: string; segmentKeys: string[]; segmentOperator: string; value: boolean };
}

describeBrowser('dashboard: rules and rollouts', () => {
  let server: TestServer;
  let browser: Browser;
  let ns: string;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
    ns = unique('rules');
    expectStatus(await server.api.post('/api/v1/namespaces', { key: ns, name: 'Rules' }), 200);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const flagUrl = (key: string) => `/api/v1/namespaces/${ns}/flags/${key}`;

  /** A variant flag with these variants; returns the variants' ids by key. */
  async function variantFlag(key: string, variants: string[]): Promise<Record<string, string>> {
    expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key, name: key, type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
    const ids: Record<string, string> = {};
    for (const v of variants) ids[v] = expectStatus(await server.api.post(`${flagUrl(key)}/variants`, { key: v, name: v }), 200).id;
    return ids;
  }

  async function segment(key: string, constraints: { property: string; operator: string; value: string; type?: string }[] = []): Promise<string> {
    expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/segments`, { key, name: key, matchType: 'ALL_MATCH_TYPE' }), 200);
    for (const c of constraints) expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/segments/${key}/constraints`, { type: 'STRING_COMPARISON_TYPE', ...c }), 200);
    return key;
  }

  const rulesOf = async (flag: string): Promise<Rule[]> => expectStatus(await server.api.get(`${flagUrl(flag)}/rules`), 200).rules;
  const rolloutsOf = async (flag: string): Promise<Rollout[]> => expectStatus(await server.api.get(`${flagUrl(flag)}/rollouts`), 200).rules;
  const keysOf = (r: { segmentKey: string; segmentKeys: string[] }) => (r.segmentKeys.length > 0 ? r.segmentKeys : [r.segmentKey]);
  /** The segment keys of each rule card, top to bottom, as the page shows them. */
  const shownRules = (page: Page) => page.locator('section.rules .rules-list > li .rule-segments').allTextContents();
  /** Each rollout card's lines ("Threshold30% of entities | Servetrue"), top to bottom. */
  const shownRollouts = (page: Page) =>
    page
      .locator('section.rollouts .rollouts-list > li')
      .evaluateAll((items) => items.map((li) => [...(li as unknown as { querySelectorAll(s: string): Iterable<{ textContent: string | null }> }).querySelectorAll('.rule-line')].map((l) => l.textContent).join(' | ')));
  /** The order save is over (its status line gone) and the list reloaded. */
  const orderSaved = (page: Page) => page.locator('.sortable-status').waitFor({ state: 'detached' });
  /** The button that has the keyboard: its label and the id of the list item it is in. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const el = (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null; closest(s: string): { getAttribute(n: string): string | null } | null } | null } }).document.activeElement;
      return { label: el?.getAttribute('aria-label') ?? null, item: el?.closest('[data-sortable-id]')?.getAttribute('data-sortable-id') ?? null };
    });

  it('a rule with a 50/50 split: created through the editor (segment with two constraints), the API holds two distributions of 50', async () => {
    const flag = unique('checkout');
    const variants = await variantFlag(flag, ['blue', 'green']);
    const seg = await segment(unique('beta-users'), [
      { property: 'plan', operator: 'eq', value: 'beta' },
      { property: 'age', operator: 'gte', value: '18', type: 'NUMBER_COMPARISON_TYPE' },
    ]);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const section = page.locator('section.rules');
      await section.getByText('No rules yet.').waitFor();
      await section.getByRole('button', { name: 'New rule' }).click();
      const editor = section.getByRole('form', { name: 'New rule' });
      await editor.getByRole('checkbox', { name: seg }).check();
      await editor.locator('.picker-option', { hasText: seg }).getByText('2 constraints, all must match').waitFor();
      await editor.getByRole('radio', { name: 'Multi-variant split' }).check();
      // Typed values, then the even-split preset.
      await editor.getByRole('spinbutton', { name: 'blue percentage' }).fill('70');
      await editor.getByRole('spinbutton', { name: 'green percentage' }).fill('20');
      await editor.getByText('Total: 90%').waitFor();
      await editor.getByText('The other 10% of the entities').waitFor();
      await editor.getByRole('button', { name: 'Split evenly (50% each)' }).click();
      expect(await editor.getByRole('spinbutton', { name: 'blue percentage' }).inputValue()).toBe('50');
      expect(await editor.getByRole('spinbutton', { name: 'green percentage' }).inputValue()).toBe('50');
      await editor.getByText('Total: 100%').waitFor();
      await screenshot(page, 'rule-editor-split');
      await editor.getByRole('button', { name: 'Create rule' }).click();

      await page.getByText('Rule created').waitFor();
      const card = section.locator('.rules-list > li').first();
      await card.getByText('50%').first().waitFor();
      expect(await card.locator('.dist-key').allTextContents()).toEqual(['blue', 'green']);
      expect(await card.locator('.rule-segments').textContent()).toBe(seg);
      // The keyboard comes back to the new rule's Edit button.
      await page.waitForFunction(() => (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } | null } }).document.activeElement?.getAttribute('aria-label') === 'Edit rule 1');
      await screenshot(page, 'rules-section');

      const rules = await rulesOf(flag);
      expect(rules).toHaveLength(1);
      expect(rules[0]).toMatchObject({ rank: 1, segmentKey: seg, segmentOperator: 'OR_SEGMENT_OPERATOR' });
      expect(rules[0].distributions.map((d) => [d.variantId, d.rollout]).sort()).toEqual(
        [
          [variants.blue, 50],
          [variants.green, 50],
        ].sort(),
      );
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a split over 100%: the sum is shown live with an inline message, save is refused and nothing is written', async () => {
    const flag = unique('over');
    const variants = await variantFlag(flag, ['a', 'b']);
    const seg = await segment(unique('everyone'));
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const section = page.locator('section.rules');
      await section.getByRole('button', { name: 'New rule' }).click();
      const editor = section.getByRole('form', { name: 'New rule' });
      await editor.getByRole('checkbox', { name: seg }).check();
      await editor.getByRole('radio', { name: 'Multi-variant split' }).check();
      const a = editor.getByRole('spinbutton', { name: 'a percentage' });
      await a.fill('60');
      await editor.getByRole('spinbutton', { name: 'b percentage' }).fill('50');
      await editor.getByText('Total: 110%').waitFor();
      const message = editor.locator('.field-error[data-field="distributions"]');
      expect(await message.textContent()).toBe('The split adds up to 110%: it may not exceed 100%.');
      expect(await a.getAttribute('aria-describedby')).toContain(await message.getAttribute('id'));
      expect(await editor.getByRole('button', { name: 'Create rule' }).isDisabled()).toBe(true);
      // Enter in a field submits the form: refused as well.
      await a.press('Enter');
      await screenshot(page, 'rule-editor-over-100');
      expect(await rulesOf(flag)).toEqual([]);

      // Back under 100: saved.
      await editor.getByRole('spinbutton', { name: 'b percentage' }).fill('40');
      await editor.getByText('Total: 100%').waitFor();
      expect(await message.count()).toBe(0);
      await editor.getByRole('button', { name: 'Create rule' }).click();
      await page.getByText('Rule created').waitFor();
      const rules = await rulesOf(flag);
      expect(rules).toHaveLength(1);
      expect(Object.fromEntries(rules[0].distributions.map((d) => [d.variantId, d.rollout]))).toEqual({ [variants.a]: 60, [variants.b]: 40 });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a distribution the server refuses: its message beside that variant, the list reloaded, and saving again finishes the same rule', async () => {
    const flag = unique('refused');
    const variants = await variantFlag(flag, ['a', 'b']);
    const seg = await segment(unique('seg'));
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const section = page.locator('section.rules');
      await section.getByRole('button', { name: 'New rule' }).click();
      const editor = section.getByRole('form', { name: 'New rule' });
      await editor.getByRole('checkbox', { name: seg }).check();
      await editor.getByRole('radio', { name: 'Multi-variant split' }).check();
      await editor.getByRole('spinbutton', { name: 'a percentage' }).fill('-10');
      await editor.getByRole('spinbutton', { name: 'b percentage' }).fill('90');
      await editor.getByRole('button', { name: 'Create rule' }).click();

      // Flipt's message, beside variant a; the rule itself was created (the list shows it), and the editor now edits it.
      const beside = page.locator('.split-error[data-field="rollout"]');
      await beside.waitFor();
      expect(await beside.textContent()).toBe("must be greater than or equal to '0'");
      expect(await page.getByRole('spinbutton', { name: 'a percentage' }).getAttribute('aria-describedby')).toContain(await beside.getAttribute('id'));
      await page.getByText('The rule was saved, but not what it serves for variant a').waitFor();
      await section.locator('.rules-list > li').first().getByText("no variant (the flag's default)").waitFor();
      const edit = section.getByRole('form', { name: 'Edit rule 1' });
      await edit.waitFor();
      expect(await rulesOf(flag)).toMatchObject([{ segmentKey: seg, distributions: [] }]);

      await edit.getByRole('spinbutton', { name: 'a percentage' }).fill('10');
      await edit.getByRole('button', { name: 'Save rule' }).click();
      await page.getByText('Rule saved').waitFor();
      const rules = await rulesOf(flag);
      expect(rules).toHaveLength(1);
      expect(Object.fromEntries(rules[0].distributions.map((d) => [d.variantId, d.rollout]))).toEqual({ [variants.a]: 10, [variants.b]: 90 });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('edits a rule (segments, AND, single → split → single through the distribution endpoints) and deletes it', async () => {
    const flag = unique('edit');
    const variants = await variantFlag(flag, ['a', 'b']);
    const s1 = await segment(unique('s1'));
    const s2 = await segment(unique('s2'));
    const created = expectStatus(await server.api.post(`${flagUrl(flag)}/rules`, { segmentKey: s1, rank: 1 }), 200);
    const first = expectStatus(await server.api.post(`${flagUrl(flag)}/rules/${created.id}/distributions`, { variantId: variants.a, rollout: 100 }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const section = page.locator('section.rules');
      await section.locator('.rules-list > li .rule-tag').getByText('single variant').waitFor();
      await section.getByRole('button', { name: 'Edit rule 1' }).click();
      const editor = section.getByRole('form', { name: 'Edit rule 1' });
      expect(await editor.getByRole('checkbox', { name: s1 }).isChecked()).toBe(true);
      await editor.getByRole('checkbox', { name: s2 }).check();
      await editor.getByRole('radio', { name: 'All of them (AND)' }).check();
      await editor.getByRole('radio', { name: 'Multi-variant split' }).check();
      await editor.getByRole('spinbutton', { name: 'a percentage' }).fill('30');
      await editor.getByRole('spinbutton', { name: 'b percentage' }).fill('70');
      await editor.getByRole('button', { name: 'Save rule' }).click();
      await page.getByText('Rule saved').waitFor();
      await section.locator('.rules-list > li .rule-op').first().waitFor();
      expect(await section.locator('.rules-list > li .rule-segments').textContent()).toBe(`${s1}AND${s2}`);

      let [rule] = await rulesOf(flag);
      expect(rule).toMatchObject({ id: created.id, segmentKey: '', segmentKeys: [s1, s2], segmentOperator: 'AND_SEGMENT_OPERATOR' });
      // a's distribution was updated in place, b's created.
      expect(rule.distributions.map((d) => [d.id === first.id, d.variantId, d.rollout])).toEqual([
        [true, variants.a, 30],
        [false, variants.b, 70],
      ]);

      await section.getByRole('button', { name: 'Edit rule 1' }).click();
      await editor.getByRole('radio', { name: 'Single variant' }).check();
      await editor.getByLabel('Variant', { exact: true }).selectOption({ label: 'b' });
      await editor.getByRole('button', { name: 'Save rule' }).click();
      await section.locator('.rules-list > li .rule-tag').getByText('single variant').waitFor();
      [rule] = await rulesOf(flag);
      expect(rule.distributions.map((d) => [d.variantId, d.rollout])).toEqual([[variants.b, 100]]);

      await section.getByRole('button', { name: 'Delete rule 1' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete rule?' });
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await page.getByText('Rule 1 deleted').waitFor();
      await section.getByText('No rules yet.').waitFor();
      expect(await rulesOf(flag)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('with no segment in the namespace, the editor says so and links to creating one', async () => {
    const empty = unique('nosegs');
    expectStatus(await server.api.post('/api/v1/namespaces', { key: empty, name: 'No segments' }), 200);
    const flag = unique('lonely');
    expectStatus(await server.api.post(`/api/v1/namespaces/${empty}/flags`, { key: flag, name: flag, type: 'VARIANT_FLAG_TYPE' }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${empty}/flags/${flag}`);
    try {
      await page.getByRole('button', { name: 'New rule' }).click();
      await page.getByText(`There are no segments in namespace ${empty} yet`).waitFor();
      expect(await page.getByRole('link', { name: 'Create a segment' }).getAttribute('href')).toBe(`#/namespaces/${empty}/segments/new`);
      expect(await page.getByRole('button', { name: 'Create rule' }).isDisabled()).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  /** A variant flag with three rules (segments r1, r2, r3 at ranks 1..3); returns the rule ids and segment keys. */
  async function threeRules(prefix: string) {
    const flag = unique(prefix);
    const variants = await variantFlag(flag, ['on']);
    const segs = [await segment(unique('r1')), await segment(unique('r2')), await segment(unique('r3'))];
    const ids: string[] = [];
    for (const [i, s] of segs.entries()) {
      const rule = expectStatus(await server.api.post(`${flagUrl(flag)}/rules`, { segmentKey: s, rank: i + 1 }), 200);
      expectStatus(await server.api.post(`${flagUrl(flag)}/rules/${rule.id}/distributions`, { variantId: variants.on, rollout: 100 }), 200);
      ids.push(rule.id);
    }
    return { flag, ids, segs };
  }
  const ranked = async (flag: string) => (await rulesOf(flag)).sort((a, b) => a.rank - b.rank).map((r) => [r.rank, r.id]);

  it('reorders rules by drag-and-drop: the API holds the new ranks', async () => {
    const { flag, ids, segs } = await threeRules('drag');
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const items = page.locator('section.rules .rules-list > li');
      await items.nth(2).waitFor();
      expect(await shownRules(page)).toEqual(segs);
      // The third rule dropped on the first takes its place.
      await items.nth(2).dragTo(items.nth(0), { sourcePosition: { x: 12, y: 12 }, targetPosition: { x: 12, y: 12 } });
      await orderSaved(page);
      expect(await shownRules(page)).toEqual([segs[2], segs[0], segs[1]]);
      expect(await ranked(flag)).toEqual([
        [1, ids[2]],
        [2, ids[0]],
        [3, ids[1]],
      ]);
      // And the first dropped on the last.
      await items.nth(0).dragTo(items.nth(2), { sourcePosition: { x: 12, y: 12 }, targetPosition: { x: 12, y: 12 } });
      await orderSaved(page);
      expect(await shownRules(page)).toEqual([segs[0], segs[1], segs[2]]);
      expect(await ranked(flag)).toEqual([
        [1, ids[0]],
        [2, ids[1]],
        [3, ids[2]],
      ]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('reorders rules by keyboard (focus stays on the moved rule); a refused order comes back with the message', async () => {
    const { flag, ids, segs } = await threeRules('keys');
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const section = page.locator('section.rules');
      await section.getByRole('button', { name: 'Move rule 2 up' }).focus();
      await page.keyboard.press('Enter');
      await orderSaved(page);
      expect(await shownRules(page)).toEqual([segs[1], segs[0], segs[2]]);
      expect(await ranked(flag)).toEqual([
        [1, ids[1]],
        [2, ids[0]],
        [3, ids[2]],
      ]);
      // At the top "up" is disabled: the keyboard is on the same rule's "down".
      expect(await focused(page)).toEqual({ label: 'Move rule 1 down', item: ids[1] });
      await page.keyboard.press('Enter');
      await orderSaved(page);
      await page.keyboard.press('Enter');
      await orderSaved(page);
      expect(await focused(page)).toEqual({ label: 'Move rule 3 up', item: ids[1] });
      expect(await shownRules(page)).toEqual([segs[0], segs[2], segs[1]]);
      expect(await ranked(flag)).toEqual([
        [1, ids[0]],
        [2, ids[2]],
        [3, ids[1]],
      ]);

      // The server refuses the next order (answered for it here): the old order comes back, with the message.
      await page.route('**/rules/order', (route) => route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ code: 3, message: 'rule order refused for the test', details: [] }) }));
      await section.getByRole('button', { name: 'Move rule 3 up' }).click();
      await section.getByRole('alert').getByText('The new order was not saved: rule order refused for the test').waitFor();
      expect(await shownRules(page)).toEqual([segs[0], segs[2], segs[1]]);
      expect(await ranked(flag)).toEqual([
        [1, ids[0]],
        [2, ids[2]],
        [3, ids[1]],
      ]);
      await screenshot(page, 'rules-reorder-refused');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a boolean flag with a threshold rollout (and a segment rollout) created through the editor; the API holds them', async () => {
    const flag = unique('dark-mode');
    expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key: flag, name: 'Dark mode', type: 'BOOLEAN_FLAG_TYPE', enabled: false }), 200);
    const seg = await segment(unique('staff'), [{ property: 'email', operator: 'suffix', value: '@example.com' }]);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const section = page.locator('section.rollouts');
      await section.getByText('No rollouts yet.').waitFor();
      expect(await section.locator('.rule-otherwise').textContent()).toContain('serve false');
      await section.getByRole('button', { name: 'New rollout' }).click();
      let editor = section.getByRole('form', { name: 'New rollout' });
      expect(await editor.getByRole('radio', { name: /Threshold/ }).isChecked()).toBe(true);
      await editor.getByLabel('Percentage', { exact: true }).fill('30');
      await editor.getByLabel('Value', { exact: true }).selectOption('true');
      await editor.getByLabel('Description', { exact: true }).fill('A third of everyone');
      await editor.getByRole('button', { name: 'Create rollout' }).click();
      await page.getByText('Rollout created').waitFor();
      await section.locator('.rollouts-list > li').first().getByText('30%').waitFor();

      await section.getByRole('button', { name: 'New rollout' }).click();
      editor = section.getByRole('form', { name: 'New rollout' });
      await editor.getByRole('radio', { name: /Segment/ }).check();
      await editor.getByRole('checkbox', { name: seg }).check();
      await editor.getByLabel('Value', { exact: true }).selectOption('false');
      await editor.getByRole('button', { name: 'Create rollout' }).click();
      await page.getByText('Rollout created').first().waitFor();
      await section.locator('.rollouts-list > li').nth(1).waitFor();
      expect(await shownRollouts(page)).toEqual(['Threshold30% of entities | Servetrue', `If${seg}matches | Servefalse`]);
      await screenshot(page, 'rollouts-section');

      const held = await rolloutsOf(flag);
      expect(held).toHaveLength(2);
      expect(held[0]).toMatchObject({ rank: 1, type: 'THRESHOLD_ROLLOUT_TYPE', description: 'A third of everyone', threshold: { percentage: 30, value: true } });
      expect(held[1]).toMatchObject({ rank: 2, type: 'SEGMENT_ROLLOUT_TYPE', segment: { segmentKey: seg, value: false } });

      // Edited: the threshold's percentage; the kind is fixed.
      await section.getByRole('button', { name: 'Edit rollout 1' }).click();
      editor = section.getByRole('form', { name: 'Edit rollout 1' });
      expect(await editor.getByRole('radio', { name: /Segment/ }).isDisabled()).toBe(true);
      await editor.getByLabel('Percentage', { exact: true }).fill('45');
      await editor.getByRole('button', { name: 'Save rollout' }).click();
      await page.getByText('Rollout saved').waitFor();
      expect((await rolloutsOf(flag))[0].threshold).toEqual({ percentage: 45, value: true });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a threshold over 100: Flipt’s message beside the percentage, nothing created', async () => {
    const flag = unique('bad-threshold');
    expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key: flag, name: flag, type: 'BOOLEAN_FLAG_TYPE' }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const section = page.locator('section.rollouts');
      await section.getByRole('button', { name: 'New rollout' }).click();
      const editor = section.getByRole('form', { name: 'New rollout' });
      await editor.getByLabel('Percentage', { exact: true }).fill('120');
      await editor.getByRole('button', { name: 'Create rollout' }).click();
      const error = editor.locator('.field-error[data-field="threshold.percentage"]');
      await error.waitFor();
      expect(await error.textContent()).toBe('must be within range [0, 100]');
      expect(await rolloutsOf(flag)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('rules stay readable in a narrow window with the dark theme (no sideways scrolling)', async () => {
    const { flag } = await threeRules('narrow');
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`, { width: 400, height: 800, colorScheme: 'dark' });
    try {
      const section = page.locator('section.rules');
      await section.locator('.rules-list > li').nth(2).waitFor();
      await section.getByRole('button', { name: 'Edit rule 2' }).click();
      await section.getByRole('radio', { name: 'Multi-variant split' }).check();
      const overflow = await page.evaluate(() => {
        const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
        return d.scrollWidth - d.clientWidth;
      });
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, 'rules-narrow-dark');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('reorders rollouts by drag-and-drop and by keyboard: the API holds the new ranks', async () => {
    const flag = unique('rollout-order');
    expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key: flag, name: flag, type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
    const ids: string[] = [];
    for (const [i, percentage] of [10, 20, 30].entries()) {
      ids.push(expectStatus(await server.api.post(`${flagUrl(flag)}/rollouts`, { rank: i + 1, threshold: { percentage, value: i % 2 === 0 } }), 200).id);
    }
    const ranks = async () => (await rolloutsOf(flag)).sort((a, b) => a.rank - b.rank).map((r) => r.id);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const section = page.locator('section.rollouts');
      const items = section.locator('.rollouts-list > li');
      await items.nth(2).waitFor();
      await items.nth(0).dragTo(items.nth(2), { sourcePosition: { x: 12, y: 12 }, targetPosition: { x: 12, y: 12 } });
      await orderSaved(page);
      expect(await ranks()).toEqual([ids[1], ids[2], ids[0]]);
      expect((await shownRollouts(page)).map((t) => t.match(/\d+%/)?.[0])).toEqual(['20%', '30%', '10%']);

      await section.getByRole('button', { name: 'Move rollout 3 up' }).focus();
      await page.keyboard.press('Enter');
      await orderSaved(page);
      expect(await focused(page)).toEqual({ label: 'Move rollout 2 up', item: ids[0] });
      expect(await ranks()).toEqual([ids[1], ids[0], ids[2]]);
      expect((await shownRollouts(page)).map((t) => t.match(/\d+%/)?.[0])).toEqual(['20%', '10%', '30%']);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
