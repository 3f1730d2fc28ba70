import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { createSegment, startDashboard, stopDashboard } from '../../support/dashboard';
import { unique } from '../../support/resources';
import { expectStatus, type TestServer } from '../../support/server';

/**
 * Confirmations ("Constraint on country added") where they cover nothing: after an action, the
 * controls a user clicks next — "Add constraint", a row's Edit and Delete, "New rule" — are the
 * element at their own centre wherever the page is scrolled, at a desktop's width and a phone's,
 * while the confirmation is in sight; it goes with the next click and does not follow the user
 * to another page.
 */
const SIZES = [
  { width: 1280, height: 720 },
  { width: 390, height: 740 },
];

/** For each way of scrolling `control` into view: is it the element at its centre, and is the toast on screen and not covered? */
function checkUncovered(control: Locator) {
  return control.evaluate((el) => {
    type Box = { top: number; bottom: number; left: number; right: number };
    type El = { getBoundingClientRect(): Box; contains(o: unknown): boolean; scrollIntoView(o: object): void };
    const g = globalThis as unknown as { innerHeight: number; document: { elementFromPoint(x: number, y: number): unknown; querySelector(s: string): El | null } };
    const at = (e: El) => {
      const r = e.getBoundingClientRect();
      return e.contains(g.document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2));
    };
    return (['start', 'center', 'end'] as const).map((block) => {
      (el as unknown as El).scrollIntoView({ block });
      const toast = g.document.querySelector('.toast');
      const r = toast?.getBoundingClientRect();
      return { block, control: at(el as unknown as El), toast: toast !== null && r!.top >= 0 && r!.bottom <= g.innerHeight && at(toast) };
    });
  });
}

/** No toast is shown — within 2 s: promptly, not by a timer running out. */
const noToast = (page: Page) =>
  page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('.toast') === null, undefined, { timeout: 2000 });

async function expectUncovered(page: Page, controls: Locator[], where: string) {
  for (const control of controls) {
    const name = (await control.getAttribute('aria-label')) ?? (await control.textContent());
    for (const seen of await checkUncovered(control)) expect(seen, `${name} scrolled to the ${seen.block}, ${where}`).toEqual({ block: seen.block, control: true, toast: true });
  }
}

describeBrowser('dashboard: toasts', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, browser } = await startDashboard()));
  afterAll(() => stopDashboard(browser, server));

  it('after adding a constraint, "Add constraint" and each row’s Edit and Delete stay uncovered, at 1280 and 390 px', async () => {
    for (const size of SIZES) {
      const segment = unique('covered');
      const constraints = ['country', 'plan', 'age'].map((property) => ({ type: 'STRING_COMPARISON_TYPE', property, operator: 'eq', value: 'x' }));
      await createSegment(server.api, 'default', { key: segment, name: 'Covered' }, constraints);
      const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/segments/${segment}`, size);
      try {
        await page.getByRole('button', { name: 'Add constraint' }).click();
        const dialog = page.getByRole('dialog', { name: 'Add constraint' });
        await dialog.getByLabel('Property', { exact: true }).fill('team');
        await dialog.getByLabel('Value', { exact: true }).fill('core');
        await dialog.getByRole('button', { name: 'Add constraint' }).click();
        await page.getByRole('status').getByText('Constraint on team added').waitFor();
        const rows = ['country', 'plan', 'age', 'team'].flatMap((p) => [
          page.getByRole('button', { name: `Edit constraint on ${p}` }),
          page.getByRole('button', { name: `Delete constraint on ${p}` }),
        ]);
        await expectUncovered(page, [page.getByRole('button', { name: 'Add constraint' }), ...rows], `${size.width} px`);
        await screenshot(page, `toast-segment-${size.width}`);
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    }
  });

  it('after adding a variant and creating a rule, the variants’ Edit and Delete, "New rule" and the rule’s buttons stay uncovered', async () => {
    for (const size of SIZES) {
      const flag = unique('toasted');
      const url = `/api/v1/namespaces/default/flags/${flag}`;
      const segment = unique('everyone');
      expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key: flag, name: 'Toasted', enabled: true }), 200);
      for (const key of ['blue', 'green']) expectStatus(await server.api.post(`${url}/variants`, { key }), 200);
      await createSegment(server.api, 'default', { key: segment, name: 'Everyone' });
      const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/flags/${flag}`, size);
      try {
        await page.getByRole('button', { name: 'Add variant' }).click();
        const dialog = page.getByRole('dialog', { name: 'Add variant' });
        await dialog.getByLabel('Key', { exact: true }).fill('red');
        await dialog.getByRole('button', { name: 'Add variant' }).click();
        await page.getByRole('status').getByText('Variant red added').waitFor();
        const variantButtons = ['blue', 'green', 'red'].flatMap((v) => [page.getByRole('button', { name: `Edit variant ${v}` }), page.getByRole('button', { name: `Delete variant ${v}` })]);
        const newRule = page.getByRole('button', { name: 'New rule' });
        await expectUncovered(page, [page.getByRole('button', { name: 'Add variant' }), ...variantButtons, newRule], `${size.width} px, variant added`);

        // The click on "New rule" was the next action: the confirmation has gone.
        await newRule.click();
        await noToast(page);
        const editor = page.getByRole('form', { name: 'New rule' });
        await editor.getByRole('checkbox', { name: segment }).check();
        await editor.getByRole('button', { name: 'Create rule' }).click();
        await page.getByRole('status').getByText('Rule created').waitFor();
        await expectUncovered(page, [newRule, page.getByRole('button', { name: 'Edit rule 1' }), page.getByRole('button', { name: 'Delete rule 1' })], `${size.width} px, rule created`);
        await screenshot(page, `toast-flag-${size.width}`);
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    }
  });

  it('a confirmation stays for the page it was made on: gone on going back, gone with the next click; one announced by a navigating action shows where it lands', async () => {
    const segment = unique('leaving');
    await createSegment(server.api, 'default', { key: segment, name: 'Leaving' });
    const { page, problems, close } = await openDashboard(browser, server.url, '/namespaces/default/segments');
    try {
      await page.getByRole('link', { name: segment }).click();
      await page.getByRole('button', { name: 'Add constraint' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add constraint' });
      await dialog.getByLabel('Property', { exact: true }).fill('country');
      await dialog.getByLabel('Value', { exact: true }).fill('FR');
      await dialog.getByRole('button', { name: 'Add constraint' }).click();
      const toast = page.getByRole('status').getByText('Constraint on country added');
      await toast.waitFor();
      // Back to the list, without a click: the segment page's confirmation stays behind.
      await page.goBack();
      await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
      await noToast(page);

      // A confirmation is gone with the next click (here: Edit, which opens its dialog).
      await page.goForward();
      await page.getByRole('button', { name: 'Edit constraint on country' }).waitFor();
      await page.getByLabel('Description', { exact: true }).first().fill('Leaving soon');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').getByText(`Segment ${segment} saved`).waitFor();
      await page.getByRole('button', { name: 'Edit constraint on country' }).click();
      await page.getByRole('dialog', { name: 'Edit constraint' }).waitFor();
      await noToast(page);
      await page.keyboard.press('Escape');

      // Deleting navigates to the list, and the confirmation comes along to say what happened.
      await page.getByRole('button', { name: `Delete segment ${segment}` }).click();
      await page.getByRole('dialog', { name: 'Delete segment?' }).getByRole('button', { name: 'Delete' }).click();
      await page.waitForURL(/#\/namespaces\/default\/segments$/);
      await page.getByRole('status').getByText(`Segment ${segment} deleted`).waitFor();
      // And it is dismissed by its own button, which takes no other action.
      await page.getByRole('button', { name: 'Dismiss' }).click();
      await noToast(page);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
