import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot, settled } from '../../support/browser';
import { createNamespace, rowKeys, sidewaysOverflow, startDashboard, stopDashboard } from '../../support/dashboard';
import { expectStatus, type TestServer } from '../../support/server';

/** Flags through the dashboard, in Chromium, against a real server: what the page shows and what the API then holds. */

/** A suffix of its own per attempt: a retried test runs against the same server. */
const suffix = () => Date.now().toString(36);

describeBrowser('dashboard: flags', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, browser } = await startDashboard()));
  afterAll(() => stopDashboard(browser, server));

  const flagUrl = (ns: string, key: string) => `/api/v1/namespaces/${ns}/flags/${key}`;

  /** Adds a variant through the dialog of the flag page. */
  async function addVariant(page: Page, fields: { key: string; name?: string; attachment?: string }) {
    await page.getByRole('button', { name: 'Add variant' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add variant' });
    await dialog.getByLabel('Key', { exact: true }).fill(fields.key);
    if (fields.name) await dialog.getByLabel('Name', { exact: true }).fill(fields.name);
    if (fields.attachment) await dialog.getByLabel('Attachment', { exact: true }).fill(fields.attachment);
    await dialog.getByRole('button', { name: 'Add variant' }).click();
    return dialog;
  }

  it('creates a variant flag from its name (derived key), adds two variants (one with a JSON attachment) and sets the default variant', async () => {
    const id = suffix();
    const key = `checkout-flow-${id}`;
    const { page, problems, close } = await openDashboard(browser, server.url, '/namespaces/default/flags');
    try {
      await page.getByRole('link', { name: 'New flag' }).first().click();
      await page.getByRole('heading', { name: 'New flag' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill(`Checkout Flow ${id}`);
      expect(await page.getByLabel('Key', { exact: true }).inputValue()).toBe(key);
      await page.getByLabel('Description', { exact: true }).fill('The new checkout, step by step');
      await page.getByRole('switch', { name: 'Enabled' }).check();
      await page.getByLabel('Metadata', { exact: true }).fill('{"team": "payments"}');
      await screenshot(page, 'flag-new');
      await page.getByRole('button', { name: 'Create' }).click();

      await page.getByText(`Flag ${key} created`).waitFor();
      await page.waitForURL(new RegExp(`#/namespaces/default/flags/${key}$`));
      await page.getByRole('heading', { name: 'Variants' }).waitFor();

      // The variants table's rows (the page's History has rows naming the variants too).
      const variants = page.locator('.variants-table');
      let dialog = await addVariant(page, { key: 'blue', name: 'Blue', attachment: '{"color":"blue","sizes":[1,2]}' });
      await dialog.waitFor({ state: 'hidden' });
      await variants.getByRole('row', { name: /blue/ }).waitFor();
      dialog = await addVariant(page, { key: 'green', name: 'Green' });
      await dialog.waitFor({ state: 'hidden' });
      await variants.getByRole('row', { name: /green/ }).waitFor();

      await page.getByLabel('Default variant', { exact: true }).selectOption({ label: 'blue (Blue)' });
      await page.getByRole('button', { name: 'Save default' }).click();
      await page.getByText('Default variant set to blue').waitFor();
      await variants.getByRole('row', { name: /blue/ }).getByText('default').waitFor();
      expect(await variants.getByRole('row', { name: /blue/ }).locator('code').textContent()).toBe('{"color":"blue","sizes":[1,2]}');
      await screenshot(page, 'flag-detail');

      const held = expectStatus(await server.api.get(flagUrl('default', key)), 200);
      expect(held).toMatchObject({ key, name: `Checkout Flow ${id}`, description: 'The new checkout, step by step', enabled: true, type: 'VARIANT_FLAG_TYPE', metadata: { team: 'payments' } });
      expect(held.variants.map((v: { key: string; name: string }) => [v.key, v.name])).toEqual([
        ['blue', 'Blue'],
        ['green', 'Green'],
      ]);
      expect(JSON.parse(held.variants[0].attachment)).toEqual({ color: 'blue', sizes: [1, 2] });
      expect(held.variants[1].attachment).toBe('');
      expect(held.defaultVariant.key).toBe('blue');

      // The same page in the dark theme.
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, 'flag-detail-dark');

      // Clearing the default variant.
      await page.getByLabel('Default variant', { exact: true }).selectOption({ label: 'None' });
      await page.getByRole('button', { name: 'Save default' }).click();
      await page.getByText('Default variant cleared').waitFor();
      expect(expectStatus(await server.api.get(flagUrl('default', key)), 200).defaultVariant).toBeUndefined();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows an invalid JSON attachment’s parse error beside the field and saves nothing; valid JSON is saved and shown indented', async () => {
    const key = `attachments-${suffix()}`;
    expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key, name: 'Attachments' }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/flags/${key}`);
    try {
      const dialog = await addVariant(page, { key: 'broken', attachment: '{"color": }' });
      const error = dialog.locator('.field-error[data-field="attachment"]');
      await error.waitFor();
      // Our own words and the place, not the browser's parser message.
      expect(await error.textContent()).toBe('Not valid JSON at line 1, column 11: expected a value (a string, number, object, array, true, false or null), found "}".');
      const attachment = dialog.getByLabel('Attachment', { exact: true });
      expect(await attachment.getAttribute('aria-invalid')).toBe('true');
      expect(await dialog.isVisible()).toBe(true);
      await screenshot(page, 'flag-variant-invalid-json');
      expect(expectStatus(await server.api.get(flagUrl('default', key)), 200).variants).toEqual([]);

      // Fixed, it is saved (compact); the editor shows it indented when opened again.
      await attachment.fill('{"color": "red", "weight": 3}');
      expect(await error.count()).toBe(0);
      await dialog.getByRole('button', { name: 'Add variant' }).click();
      await page.getByText('Variant broken added').waitFor();
      const held = expectStatus(await server.api.get(flagUrl('default', key)), 200);
      expect(held.variants).toHaveLength(1);
      expect(held.variants[0].attachment).toBe('{"color":"red","weight":3}');

      await page.getByRole('button', { name: 'Edit variant broken' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit variant broken' });
      expect(await edit.getByLabel('Attachment', { exact: true }).inputValue()).toBe('{\n  "color": "red",\n  "weight": 3\n}');
      // Escape closes the dialog without saving.
      await page.keyboard.press('Escape');
      await edit.waitFor({ state: 'hidden' });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('searches, sorts (mouse and keyboard) and pages through 25 flags; an empty namespace offers "New flag"', async () => {
    const ns = `list-${suffix()}`;
    await createNamespace(server.api, ns, 'Listing');
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/flags`);
    try {
      await page.getByText(`No flags in namespace ${ns} yet.`).waitFor();
      expect(await page.locator('.state-empty').getByRole('link', { name: 'New flag' }).getAttribute('href')).toBe(`#/namespaces/${ns}/flags/new`);

      for (let i = 0; i < 25; i++) {
        const n = String(i).padStart(2, '0');
        const body = { key: `flag-${n}`, name: `Flag ${n}`, description: i % 2 === 0 ? 'payments team' : 'search team', enabled: i % 3 === 0 };
        expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, body), 200);
      }
      await page.reload();
      await settled(page);

      const keys = () => rowKeys(page);
      expect(await keys()).toEqual(Array.from({ length: 20 }, (_, i) => `flag-${String(i).padStart(2, '0')}`));
      await page.getByText('1–20 of 25 flags').waitFor();
      await screenshot(page, 'flags-list');
      await page.getByRole('button', { name: 'Next' }).click();
      expect(await keys()).toEqual(['flag-20', 'flag-21', 'flag-22', 'flag-23', 'flag-24']);
      await page.getByText('21–25 of 25 flags').waitFor();
      expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

      // Search narrows (and goes back to the first page): 13 "payments" flags, one page.
      await page.getByRole('searchbox', { name: 'Search flags' }).fill('payments');
      expect(await keys()).toHaveLength(13);
      expect((await keys()).every((k) => Number(k.slice(5)) % 2 === 0)).toBe(true);
      expect(await page.locator('.pager').count()).toBe(0);
      await page.getByRole('searchbox', { name: 'Search flags' }).fill('flag-07');
      expect(await keys()).toEqual(['flag-07']);
      await page.getByRole('searchbox', { name: 'Search flags' }).fill('');

      // Sorting: Key again reverses it; the Evaluation header, reached with Tab, sorts with Enter.
      const keyHeader = page.getByRole('columnheader', { name: 'Key' });
      await keyHeader.getByRole('button').click();
      expect(await keyHeader.getAttribute('aria-sort')).toBe('descending');
      expect((await keys())[0]).toBe('flag-24');
      await keyHeader.getByRole('button').focus();
      for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      expect(await page.getByRole('columnheader', { name: 'Evaluation' }).getAttribute('aria-sort')).toBe('ascending');
      // Disabled before enabled: the first page is the 16 disabled flags, then 4 enabled ones.
      const firstPage = await keys();
      expect(firstPage.slice(0, 16).every((k) => Number(k.slice(5)) % 3 !== 0)).toBe(true);
      expect(await page.getByRole('row', { name: new RegExp(firstPage[0]) }).getByText('Disabled').count()).toBe(1);

      // Rows link to their flag.
      await page.getByRole('link', { name: 'flag-07', exact: true }).click();
      await page.waitForURL(new RegExp(`#/namespaces/${ns}/flags/flag-07$`));
      await page.getByRole('heading', { name: 'Flag 07' }).waitFor();

      // A narrow window: the page itself does not scroll sideways (the table scrolls in its box).
      await page.goBack();
      await page.setViewportSize({ width: 400, height: 800 });
      await page.getByRole('searchbox', { name: 'Search flags' }).waitFor();
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, 'flags-list-narrow');

      const listed = expectStatus(await server.api.get(`/api/v1/namespaces/${ns}/flags?limit=100`), 200);
      expect(listed.flags).toHaveLength(25);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('edits a flag’s name, description, enabled and metadata (refusing metadata that is not an object), then deletes it', async () => {
    const key = `editable-${suffix()}`;
    expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key, name: 'Editable', metadata: { owner: 'ann' } }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/flags/${key}`);
    try {
      const form = page.getByRole('form', { name: 'Flag details' });
      expect(await form.getByLabel('Key', { exact: true }).getAttribute('readonly')).not.toBeNull();
      const metadata = form.getByLabel('Metadata', { exact: true });
      expect(JSON.parse(await metadata.inputValue())).toEqual({ owner: 'ann' });

      await form.getByLabel('Name', { exact: true }).fill('Edited');
      await form.getByLabel('Description', { exact: true }).fill('Now described');
      await form.getByRole('switch', { name: 'Enabled' }).check();
      await metadata.fill('[1, 2]');
      await form.getByRole('button', { name: 'Save' }).click();
      const error = form.locator('.field-error[data-field="metadata"]');
      await error.waitFor();
      expect(await error.textContent()).toMatch(/JSON object/);
      expect(expectStatus(await server.api.get(flagUrl('default', key)), 200).name).toBe('Editable');

      await metadata.fill('{"owner": "bob", "tier": 2}');
      await form.getByRole('button', { name: 'Save' }).click();
      await page.getByText(`Flag ${key} saved`).waitFor();
      await page.getByRole('heading', { level: 1, name: 'Edited' }).waitFor();
      expect(expectStatus(await server.api.get(flagUrl('default', key)), 200)).toMatchObject({ name: 'Edited', description: 'Now described', enabled: true, metadata: { owner: 'bob', tier: 2 } });

      // An empty name: the server's message, beside the name.
      await form.getByLabel('Name', { exact: true }).fill('');
      await form.getByRole('button', { name: 'Save' }).click();
      await form.locator('.field-error[data-field="name"]').waitFor();
      expect(await form.locator('.field-error[data-field="name"]').textContent()).toBe('must not be empty');

      await page.getByRole('button', { name: 'Delete flag' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete flag?' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await page.getByText(`Flag ${key} deleted`).waitFor();
      await page.waitForURL(/#\/namespaces\/default\/flags$/);
      expect(await page.getByRole('link', { name: key, exact: true }).count()).toBe(0);
      expect((await server.api.get(flagUrl('default', key))).status).toBe(404);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('copies a flag with its variants and default variant to another namespace, and says so when it is already there', async () => {
    const id = suffix();
    const key = `copied-${id}`;
    const target = `target-${id}`;
    await createNamespace(server.api, target, 'Target');
    expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key, name: 'Copied', enabled: true, metadata: { a: 1 } }), 200);
    const on = expectStatus(await server.api.post(`${flagUrl('default', key)}/variants`, { key: 'on', attachment: '{"x":1}' }), 200);
    expectStatus(await server.api.post(`${flagUrl('default', key)}/variants`, { key: 'off' }), 200);
    expectStatus(await server.api.put(flagUrl('default', key), { name: 'Copied', enabled: true, defaultVariantId: on.id }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/flags/${key}`);
    try {
      const copy = async () => {
        await page.getByRole('button', { name: 'Copy to namespace…' }).click();
        const dialog = page.getByRole('dialog', { name: 'Copy flag to another namespace' });
        await dialog.getByLabel('Copy to namespace', { exact: true }).selectOption(target);
        await dialog.getByRole('button', { name: 'Copy' }).click();
        return dialog;
      };
      let dialog = await copy();
      await page.getByText(`Flag ${key} copied to namespace ${target}`).waitFor();
      await dialog.waitFor({ state: 'hidden' });
      const held = expectStatus(await server.api.get(flagUrl(target, key)), 200);
      expect(held).toMatchObject({ key, name: 'Copied', enabled: true, namespaceKey: target, metadata: { a: 1 } });
      expect(held.variants.map((v: { key: string; attachment: string }) => [v.key, v.attachment])).toEqual([
        ['on', '{"x":1}'],
        ['off', ''],
      ]);
      expect(held.defaultVariant.key).toBe('on');

      dialog = await copy();
      await dialog.getByRole('alert').waitFor();
      expect(await dialog.getByRole('alert').textContent()).toBe(`A flag with key ${key} already exists in namespace ${target}.`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('creates a boolean flag (a duplicate key refused beside the key; the key stops following the name once typed); its page shows its default value (enabled) and rollouts', async () => {
    const id = suffix();
    const taken = `taken-${id}`;
    expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key: taken, name: 'Taken' }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, '/namespaces/default/flags/new');
    try {
      const name = page.getByLabel('Name', { exact: true });
      const key = page.getByLabel('Key', { exact: true });
      await name.fill('Dark mode’s toggle!');
      expect(await key.inputValue()).toBe('dark-modes-toggle');
      await key.fill(taken);
      await name.fill(`Dark mode ${id}`);
      expect(await key.inputValue()).toBe(taken);
      await page.getByRole('radio', { name: /Boolean/ }).check();
      await page.getByRole('switch', { name: 'Enabled' }).check();
      await page.getByRole('button', { name: 'Create' }).click();

      const error = page.locator('.field-error[data-field="key"]');
      await error.waitFor();
      expect(await error.textContent()).toBe(`A flag with key ${taken} already exists in namespace default.`);
      expect(await key.getAttribute('aria-invalid')).toBe('true');

      const fresh = `dark-mode-${id}`;
      await key.fill(fresh);
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByText(`Flag ${fresh} created`).waitFor();
      await page.getByRole('heading', { name: 'Rollouts' }).waitFor();
      expect(await page.getByTestId('boolean-default').textContent()).toBe('true');
      expect(await page.getByRole('heading', { name: 'Variants' }).count()).toBe(0);
      await screenshot(page, 'flag-detail-boolean');

      const held = expectStatus(await server.api.get(flagUrl('default', fresh)), 200);
      expect(held).toMatchObject({ key: fresh, name: `Dark mode ${id}`, type: 'BOOLEAN_FLAG_TYPE', enabled: true, variants: [] });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
