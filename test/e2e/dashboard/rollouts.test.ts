import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { stopDashboard } from '../../support/dashboard';
import { expectStatus, type TestServer } from '../../support/server';
import { focused, orderSaved, startRulesSuite, type rulesKit, shownRollouts } from '../../support/dashboard-rules';
import { unique } from '../../support/resources';

/**
 * Rollouts (boolean flags) on the flag page, in Chromium, against a real server: what the page
 * shows and what the API then holds.
 */

describeBrowser('dashboard: rollouts', () => {
  let server: TestServer;
  let browser: Browser;
  let ns: string;
  let kit: ReturnType<typeof rulesKit>;
  beforeAll(async () => ({ server, browser, ns, kit } = await startRulesSuite('rollouts')));
  afterAll(() => stopDashboard(browser, server));

  it('a boolean flag with a threshold rollout (and a segment rollout) created through the editor; the API holds them', async () => {
    const flag = unique('dark-mode');
    expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key: flag, name: 'Dark mode', type: 'BOOLEAN_FLAG_TYPE', enabled: false }), 200);
    const seg = await kit.segment(unique('staff'), [{ property: 'email', operator: 'suffix', value: '@example.com' }]);
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

      const held = await kit.rolloutsOf(flag);
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
      expect((await kit.rolloutsOf(flag))[0].threshold).toEqual({ percentage: 45, value: true });
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
      expect(await kit.rolloutsOf(flag)).toEqual([]);
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
      ids.push(expectStatus(await server.api.post(`${kit.flagUrl(flag)}/rollouts`, { rank: i + 1, threshold: { percentage, value: i % 2 === 0 } }), 200).id);
    }
    const ranks = async () => (await kit.rolloutsOf(flag)).sort((a, b) => a.rank - b.rank).map((r) => r.id);
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
