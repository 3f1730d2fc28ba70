import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { stopDashboard } from '../../support/dashboard';
import { expectStatus, startServer, type TestServer } from '../../support/server';
import { focused, newSplitRule, orderSaved, startRulesSuite, type rulesKit, shownRules } from '../../support/dashboard-rules';
import { unique } from '../../support/resources';

/**
 * Rules (variant flags) on the flag page, in Chromium, against a real server: what the page
 * shows and what the API then holds — distributions and ranks.
 */

describeBrowser('dashboard: rules', () => {
  let server: TestServer;
  let browser: Browser;
  let ns: string;
  let kit: ReturnType<typeof rulesKit>;
  beforeAll(async () => ({ server, browser, ns, kit } = await startRulesSuite('rules')));
  afterAll(() => stopDashboard(browser, server));

  it('a rule with a 50/50 split: created through the editor (segment with two constraints), the API holds two distributions of 50', async () => {
    const flag = unique('checkout');
    const variants = await kit.variantFlag(flag, ['blue', 'green']);
    const seg = await kit.segment(unique('beta-users'), [
      { property: 'plan', operator: 'eq', value: 'beta' },
      { property: 'age', operator: 'gte', value: '18', type: 'NUMBER_COMPARISON_TYPE' },
    ]);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      await page.locator('section.rules').getByText('No rules yet.').waitFor();
      const { section, editor } = await newSplitRule(page, seg);
      await editor.locator('.picker-option', { hasText: seg }).getByText('2 constraints, all must match').waitFor();
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

      const rules = await kit.rulesOf(flag);
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
    const variants = await kit.variantFlag(flag, ['a', 'b']);
    const seg = await kit.segment(unique('everyone'));
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const { editor } = await newSplitRule(page, seg);
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
      expect(await kit.rulesOf(flag)).toEqual([]);

      // Back under 100: saved.
      await editor.getByRole('spinbutton', { name: 'b percentage' }).fill('40');
      await editor.getByText('Total: 100%').waitFor();
      expect(await message.count()).toBe(0);
      await editor.getByRole('button', { name: 'Create rule' }).click();
      await page.getByText('Rule created').waitFor();
      const rules = await kit.rulesOf(flag);
      expect(rules).toHaveLength(1);
      expect(Object.fromEntries(rules[0].distributions.map((d) => [d.variantId, d.rollout]))).toEqual({ [variants.a]: 60, [variants.b]: 40 });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a distribution the server refuses: its message beside that variant, the list reloaded, and saving again finishes the same rule', async () => {
    const flag = unique('refused');
    const variants = await kit.variantFlag(flag, ['a', 'b']);
    const seg = await kit.segment(unique('seg'));
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const { section, editor } = await newSplitRule(page, seg);
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
      expect(await kit.rulesOf(flag)).toMatchObject([{ segmentKey: seg, distributions: [] }]);

      await edit.getByRole('spinbutton', { name: 'a percentage' }).fill('10');
      await edit.getByRole('button', { name: 'Save rule' }).click();
      await page.getByText('Rule saved').waitFor();
      const rules = await kit.rulesOf(flag);
      expect(rules).toHaveLength(1);
      expect(Object.fromEntries(rules[0].distributions.map((d) => [d.variantId, d.rollout]))).toEqual({ [variants.a]: 10, [variants.b]: 90 });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('edits a rule (segments, AND, single → split → single through the distribution endpoints) and deletes it', async () => {
    const flag = unique('edit');
    const variants = await kit.variantFlag(flag, ['a', 'b']);
    const s1 = await kit.segment(unique('s1'));
    const s2 = await kit.segment(unique('s2'));
    const created = expectStatus(await server.api.post(`${kit.flagUrl(flag)}/rules`, { segmentKey: s1, rank: 1 }), 200);
    const first = expectStatus(await server.api.post(`${kit.flagUrl(flag)}/rules/${created.id}/distributions`, { variantId: variants.a, rollout: 100 }), 200);
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

      let [rule] = await kit.rulesOf(flag);
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
      [rule] = await kit.rulesOf(flag);
      expect(rule.distributions.map((d) => [d.variantId, d.rollout])).toEqual([[variants.b, 100]]);

      await section.getByRole('button', { name: 'Delete rule 1' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete rule?' });
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await page.getByText('Rule 1 deleted').waitFor();
      await section.getByText('No rules yet.').waitFor();
      expect(await kit.rulesOf(flag)).toEqual([]);
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

  it('reorders rules by drag-and-drop: the API holds the new ranks', async () => {
    const { flag, ids, segs } = await kit.threeRules('drag');
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const items = page.locator('section.rules .rules-list > li');
      await items.nth(2).waitFor();
      expect(await shownRules(page)).toEqual(segs);
      // The third rule dropped on the first takes its place.
      await items.nth(2).dragTo(items.nth(0), { sourcePosition: { x: 12, y: 12 }, targetPosition: { x: 12, y: 12 } });
      await orderSaved(page);
      expect(await shownRules(page)).toEqual([segs[2], segs[0], segs[1]]);
      expect(await kit.ranked(flag)).toEqual([
        [1, ids[2]],
        [2, ids[0]],
        [3, ids[1]],
      ]);
      // And the first dropped on the last.
      await items.nth(0).dragTo(items.nth(2), { sourcePosition: { x: 12, y: 12 }, targetPosition: { x: 12, y: 12 } });
      await orderSaved(page);
      expect(await shownRules(page)).toEqual([segs[0], segs[1], segs[2]]);
      expect(await kit.ranked(flag)).toEqual([
        [1, ids[0]],
        [2, ids[1]],
        [3, ids[2]],
      ]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('reorders rules by keyboard (focus stays on the moved rule)', async () => {
    const { flag, ids, segs } = await kit.threeRules('keys');
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const section = page.locator('section.rules');
      await section.getByRole('button', { name: 'Move rule 2 up' }).focus();
      await page.keyboard.press('Enter');
      await orderSaved(page);
      expect(await shownRules(page)).toEqual([segs[1], segs[0], segs[2]]);
      expect(await kit.ranked(flag)).toEqual([
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
      expect(await kit.ranked(flag)).toEqual([
        [1, ids[0]],
        [2, ids[2]],
        [3, ids[1]],
      ]);

      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
  it('an order the server refuses: the old order comes back with its message', async () => {
    // 28 rules: their order (28 ids) is a body over 1 KiB, which a second instance on the same
    // database with the smallest body limit (1 KiB) refuses for real (413, Flipt's body); the
    // page's reads work there.
    const flag = unique('refused-order');
    const variants = await kit.variantFlag(flag, ['on']);
    const seg = await kit.segment(unique('all'));
    const ids: string[] = [];
    for (let i = 0; i < 28; i++) {
      const rule = expectStatus(await server.api.post(`${kit.flagUrl(flag)}/rules`, { segmentKey: seg, rank: i + 1 }), 200);
      expectStatus(await server.api.post(`${kit.flagUrl(flag)}/rules/${rule.id}/distributions`, { variantId: variants.on, rollout: 100 }), 200);
      ids.push(rule.id);
    }
    const strict = await startServer({ PENNON_DB_URL: server.dbUrl, PENNON_SERVER_MAX_BODY_BYTES: '1024' });
    const { page, problems, close } = await openDashboard(browser, strict.url, `/namespaces/${ns}/flags/${flag}`);
    const shownIds = () => page.locator('section.rules [data-sortable-id]').evaluateAll((items) => items.map((i) => i.getAttribute('data-sortable-id')));
    try {
      const section = page.locator('section.rules');
      await section.locator('.rules-list > li').nth(27).waitFor();
      expect(await shownIds()).toEqual(ids);
      await section.getByRole('button', { name: 'Move rule 28 up' }).click();
      await section.getByRole('alert').getByText('The new order was not saved: request body is too large').waitFor();
      expect(await shownIds()).toEqual(ids);
      expect(await kit.ranked(flag)).toEqual(ids.map((id, i) => [i + 1, id]));
      await screenshot(page, 'rules-reorder-refused');
      expect(problems).toEqual([]);
    } finally {
      await close();
      await strict.stop();
    }
  });

  it('rules stay readable in a narrow window with the dark theme (no sideways scrolling)', async () => {
    const { flag } = await kit.threeRules('narrow');
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
});
