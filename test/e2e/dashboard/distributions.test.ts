import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { crc32 } from '../../../internal/evaluation';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { stopDashboard } from '../../support/dashboard';
import { expectStatus, type TestServer } from '../../support/server';
import { rulesKit, startRulesSuite } from '../../support/dashboard-rules';
import { unique } from '../../support/resources';

/**
 * Rules the dashboard's editor would not write but Flipt's API accepts, made through the API:
 * distributions that add up to more than 100%, and two distributions of the same variant. The
 * flag page and the console say what evaluation really does with them; the editor shows each
 * distribution and saves each to its own id.
 */
describeBrowser('dashboard: distributions the API allows', () => {
  let server: TestServer;
  let browser: Browser;
  let ns: string;
  let kit: ReturnType<typeof rulesKit>;
  beforeAll(async () => ({ server, browser, ns, kit } = await startRulesSuite('dists')));
  afterAll(() => stopDashboard(browser, server));

  /** A flag with variants control and treatment and one rule on an everyone segment with these distributions. */
  async function ruleWith(prefix: string, distributions: [string, number][]) {
    const flag = unique(prefix);
    const variants = await kit.variantFlag(flag, ['control', 'treatment']);
    const rule = expectStatus(await server.api.post(`${kit.flagUrl(flag)}/rules`, { segmentKey: await kit.segment(unique('everyone')), rank: 1 }), 200).id;
    const ids: string[] = [];
    for (const [variant, rollout] of distributions) {
      ids.push(expectStatus(await server.api.post(`${kit.flagUrl(flag)}/rules/${rule}/distributions`, { variantId: variants[variant], rollout }), 200).id);
    }
    return { flag, variants, rule, ids };
  }

  it('a split of 120%: the flag page warns what is really served, the console lists the range never reached', async () => {
    const { flag } = await ruleWith('over', [
      ['control', 60],
      ['treatment', 60],
    ]);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const warning = page.locator('section.rules').getByTestId('rule-over-100');
      await warning.waitFor();
      expect(await warning.textContent()).toBe(
        'Adds up to 120%. Only 100% can be served — entities fill the buckets in this order — so treatment is served to 40%, not 60%. Edit the rule to bring the split to 100% or less.',
      );
      await screenshot(page, 'rule-over-100');

      // An entity whose bucket is in treatment's reachable part (600–999): the server serves treatment.
      let n = 0;
      while (crc32(`${flag}u-${n}`) % 1000 < 600) n++;
      const entityId = `u-${n}`;
      const bucket = crc32(flag + entityId) % 1000;
      const answer = expectStatus(await server.api.post('/evaluate/v1/variant', { namespaceKey: ns, flagKey: flag, entityId, context: {} }), 200);
      expect(answer.variantKey).toBe('treatment');

      await page.goto(`${server.url}/#/namespaces/${ns}/console?flag=${flag}`);
      await page.getByLabel('Entity ID', { exact: true }).fill(entityId);
      await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
      const bar = page.getByTestId('console-bucket');
      await bar.waitFor();
      expect(await bar.getAttribute('data-bucket')).toBe(String(bucket));
      expect(await bar.getByTestId('console-unreachable').textContent()).toBe(
        'The distributions add up to 120%, but buckets stop at 999: 1000–1199 (treatment) is never reached, so treatment is served to 40%, not 60%.',
      );
      expect(await bar.locator('tbody tr').evaluateAll((rows) => rows.map((r) => (r as unknown as { textContent: string }).textContent))).toEqual([
        '0–599control60.0%',
        `600–999treatment40.0% ← bucket ${bucket}`,
        '1000–1199treatmentnever reached (past 999)',
      ]);
      // The bar draws buckets 0–999 only: nothing past its right edge.
      const rightEdges = await bar.locator('svg rect').evaluateAll((rects) => rects.map((r) => Number((r as unknown as { getAttribute(n: string): string }).getAttribute('x')) + Number((r as unknown as { getAttribute(n: string): string }).getAttribute('width'))));
      expect(Math.max(...rightEdges)).toBe(1000);
      expect(await page.getByTestId('console-explain-text').textContent()).toContain('never reached (the distributions add up to 120%): 1000–1199 treatment');
      await screenshot(page, 'console-over-100');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a variant never served at all is said so', async () => {
    const { flag } = await ruleWith('never', [
      ['control', 100],
      ['treatment', 30],
    ]);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const warning = page.locator('section.rules').getByTestId('rule-over-100');
      await warning.waitFor();
      expect(await warning.textContent()).toContain('Adds up to 130%.');
      expect(await warning.textContent()).toContain('so treatment (30%) is never served.');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('two distributions of the same variant: two rows in the editor, each saved to its own distribution', async () => {
    const { flag, variants, ids } = await ruleWith('twice', [
      ['control', 30],
      ['treatment', 20],
      ['control', 10],
    ]);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags/${flag}`);
    try {
      const section = page.locator('section.rules');
      // The card lists the three distributions as the API holds them.
      await section.locator('.dist-list li').nth(2).waitFor();
      expect(await section.locator('.dist-list li .dist-key').allTextContents()).toEqual(['control', 'treatment', 'control', 'no variant']);
      await section.getByRole('button', { name: 'Edit rule 1' }).click();
      const editor = section.getByRole('form', { name: 'Edit rule 1' });
      const first = editor.getByRole('spinbutton', { name: 'control percentage (distribution 1 of 2)' });
      const second = editor.getByRole('spinbutton', { name: 'control percentage (distribution 2 of 2)' });
      expect([await first.inputValue(), await second.inputValue(), await editor.getByRole('spinbutton', { name: 'treatment percentage' }).inputValue()]).toEqual(['30', '10', '20']);
      expect(await editor.getByTestId('split-repeated').textContent()).toContain('This rule distributes control more than once');
      await editor.getByText('Total: 60%').waitFor();
      await screenshot(page, 'rule-editor-repeated-variant');

      await second.fill('25');
      await editor.getByText('Total: 75%').waitFor();
      await editor.getByRole('button', { name: 'Save rule' }).click();
      await page.getByText('Rule saved').waitFor();
      const [rule] = await kit.rulesOf(flag);
      // Same three distributions (by id), the second control one changed.
      expect(rule.distributions.map((d) => [d.id, d.variantId, d.rollout]).sort()).toEqual(
        [
          [ids[0], variants.control, 30],
          [ids[1], variants.treatment, 20],
          [ids[2], variants.control, 25],
        ].sort(),
      );
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
