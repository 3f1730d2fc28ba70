import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { createNamespace, createSegment, startDashboard, stopDashboard } from '../../support/dashboard';
import { unique } from '../../support/resources';
import { expectStatus, type TestServer } from '../../support/server';

/**
 * The server's shorthand reworded where the dashboard shows it: a key already taken, of every
 * kind, and a segment still in use — said with the flags, rules and rollouts that use it, which
 * the segment page also lists. (Flags: flags.test.ts; a copied segment: segments.test.ts.)
 */
describeBrowser('dashboard: the server’s messages, in words', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, browser } = await startDashboard()));
  afterAll(() => stopDashboard(browser, server));

  /** The message beside the Key field in `form` (the page, or a dialog), once the server refused it. */
  async function keyError(form: Page | Locator): Promise<string | null> {
    const error = form.locator('.field-error[data-field="key"]');
    await error.waitFor();
    expect(await form.getByLabel('Key', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    return error.textContent();
  }

  it('a key already taken — namespace, segment, variant — is said beside the key, not as `… is not unique`', async () => {
    const ns = unique('words');
    const segment = unique('beta-users');
    const flag = unique('dark-mode');
    await createNamespace(server.api, ns, 'Words');
    await createSegment(server.api, ns, { key: segment, name: 'Beta users' });
    expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key: flag, name: 'Dark mode' }), 200);
    expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags/${flag}/variants`, { key: 'blue' }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, '/settings/namespaces/new');
    try {
      await page.getByLabel('Name', { exact: true }).fill('Again');
      await page.getByLabel('Key', { exact: true }).fill(ns);
      await page.getByRole('button', { name: 'Create' }).click();
      expect(await keyError(page)).toBe(`A namespace with key ${ns} already exists.`);

      await page.goto(`${server.url}/#/namespaces/${ns}/segments/new`);
      await page.getByLabel('Name', { exact: true }).fill('Beta users again');
      await page.getByLabel('Key', { exact: true }).fill(segment);
      await page.getByRole('button', { name: 'Create' }).click();
      expect(await keyError(page)).toBe(`A segment with key ${segment} already exists in namespace ${ns}.`);

      await page.goto(`${server.url}/#/namespaces/${ns}/flags/${flag}`);
      await page.getByRole('button', { name: 'Add variant' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add variant' });
      await dialog.getByLabel('Key', { exact: true }).fill('blue');
      await dialog.getByRole('button', { name: 'Add variant' }).click();
      expect(await keyError(dialog)).toBe(`Flag ${flag} already has a variant with key blue.`);
      await screenshot(page, 'variant-key-taken');
      // The server's own words are in the API's answer, not on the page.
      expect((await server.api.post(`/api/v1/namespaces/${ns}/flags/${flag}/variants`, { key: 'blue' })).body.message).toBe(`variant "blue" is not unique for flag "${ns}/${flag}"`);
      expect(await page.getByText('is not unique').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a segment in use: its page lists the flags, rules and rollouts that use it; deleting it says which', async () => {
    const ns = unique('usage');
    const segment = unique('beta-users');
    const other = unique('staff');
    const checkout = unique('checkout');
    const darkMode = unique('dark-mode');
    const unused = unique('unused');
    await createNamespace(server.api, ns, 'Usage');
    await createSegment(server.api, ns, { key: segment, name: 'Beta users' });
    await createSegment(server.api, ns, { key: other, name: 'Staff' });
    const flags = `/api/v1/namespaces/${ns}/flags`;
    // A variant flag whose rules 2 and 3 use the segment (rule 3 among two segments, AND).
    expectStatus(await server.api.post(flags, { key: checkout, name: 'Checkout', type: 'VARIANT_FLAG_TYPE' }), 200);
    expectStatus(await server.api.post(`${flags}/${checkout}/rules`, { segmentKey: other, rank: 1 }), 200);
    expectStatus(await server.api.post(`${flags}/${checkout}/rules`, { segmentKey: segment, rank: 2 }), 200);
    expectStatus(await server.api.post(`${flags}/${checkout}/rules`, { segmentKeys: [other, segment], segmentOperator: 'AND_SEGMENT_OPERATOR', rank: 3 }), 200);
    // A boolean flag whose rollout 2 uses it, after a threshold rollout.
    expectStatus(await server.api.post(flags, { key: darkMode, name: 'Dark mode', type: 'BOOLEAN_FLAG_TYPE' }), 200);
    expectStatus(await server.api.post(`${flags}/${darkMode}/rollouts`, { rank: 1, threshold: { percentage: 10, value: true } }), 200);
    expectStatus(await server.api.post(`${flags}/${darkMode}/rollouts`, { rank: 2, segment: { segmentKey: segment, value: true } }), 200);
    // A flag on the other segment only: not listed.
    expectStatus(await server.api.post(flags, { key: unused, name: 'Unused', type: 'VARIANT_FLAG_TYPE' }), 200);
    expectStatus(await server.api.post(`${flags}/${unused}/rules`, { segmentKey: other, rank: 1 }), 200);

    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/segments/${segment}`);
    try {
      const list = page.getByTestId('segment-usage');
      await list.waitFor();
      const items = await list.locator('li').evaluateAll((lis) => lis.map((li) => [(li as unknown as { dataset: { flag: string } }).dataset.flag, (li as unknown as { textContent: string }).textContent]));
      expect(items).toEqual([
        [checkout, `${checkout} Checkoutrules 2 and 3`],
        [darkMode, `${darkMode} Dark moderollout 2`],
      ]);
      await screenshot(page, 'segment-used-by');

      await page.getByRole('button', { name: `Delete segment ${segment}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete segment?' });
      await dialog.getByRole('button', { name: 'Delete' }).click();
      const alert = dialog.getByRole('alert');
      await alert.waitFor();
      // In the order the API lists the flags (creation order).
      expect(await alert.textContent()).toBe(
        `Segment ${segment} is used by flag ${checkout} (rules 2 and 3) and flag ${darkMode} (rollout 2). It can be deleted once no rule or rollout uses it.`,
      );
      expect((await server.api.get(`/api/v1/namespaces/${ns}/segments/${segment}`)).status).toBe(200);
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      // Each entry links to its flag's page.
      await list.getByRole('link', { name: darkMode }).click();
      await page.waitForURL(new RegExp(`#/namespaces/${ns}/flags/${darkMode}$`));
      await page.getByRole('heading', { name: 'Rollouts' }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a segment no rule or rollout uses says so; a flag or segment that does not exist is said in words', async () => {
    const segment = unique('lonely');
    await createSegment(server.api, 'default', { key: segment, name: 'Lonely' });
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/segments/${segment}`);
    try {
      await page.getByText('No rule or rollout uses this segment: it can be deleted.').waitFor();
      await page.goto(`${server.url}/#/namespaces/default/flags/${segment}`);
      await page.getByRole('alert').getByText(`There is no flag ${segment} in namespace default.`).waitFor();
      await page.goto(`${server.url}/#/namespaces/default/segments/${segment}-gone`);
      await page.getByRole('alert').getByText(`There is no segment ${segment}-gone in namespace default.`).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
