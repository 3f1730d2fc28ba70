import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot, settled } from '../../support/browser';
import { createNamespace, optionValues, startDashboard, stopDashboard } from '../../support/dashboard';
import { unique } from '../../support/resources';
import { expectStatus, type TestServer } from '../../support/server';

/** Namespaces through the dashboard, in Chromium, against a real server: what the page shows and what the API then holds. */

describeBrowser('dashboard: namespaces', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, browser } = await startDashboard()));
  afterAll(() => stopDashboard(browser, server));

  it('creates a namespace from the form (key proposed from the name); the API then holds it', async () => {
    const { page, problems, close } = await openDashboard(browser, server.url, '/settings/namespaces');
    try {
      await page.getByRole('row', { name: /default/ }).waitFor();
      await screenshot(page, 'namespaces-list');
      await page.getByRole('link', { name: 'New namespace' }).click();
      const key = unique('team-payments');
      const name = key.replace('team-payments', 'Team Payments');
      await page.getByLabel('Name', { exact: true }).fill(name);
      expect(await page.getByLabel('Key', { exact: true }).inputValue()).toBe(key);
      await page.getByLabel('Description', { exact: true }).fill('Flags of the payments team');
      await screenshot(page, 'namespace-new');
      await page.getByRole('button', { name: 'Create' }).click();

      // Back on the list, with the new row, a confirmation, and the switcher offering it.
      await page.getByRole('row', { name: new RegExp(key) }).waitFor();
      expect(page.url()).toMatch(/#\/settings\/namespaces$/);
      await page.getByText(`Namespace ${key} created`).waitFor();
      expect(await page.getByLabel('Namespace', { exact: true }).locator('option').allTextContents()).toContain(`${name} (${key})`);

      const held = expectStatus(await server.api.get(`/api/v1/namespaces/${key}`), 200);
      expect(held).toMatchObject({ key, name, description: 'Flags of the payments team', protected: false });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows Flipt’s validation message beside the key field, and creates nothing', async () => {
    const before = expectStatus(await server.api.get('/api/v1/namespaces'), 200).namespaces.length;
    const { page, problems, close } = await openDashboard(browser, server.url, '/settings/namespaces/new');
    try {
      await page.getByLabel('Name', { exact: true }).fill('Bad one');
      await page.getByLabel('Key', { exact: true }).fill('bad key!');
      await page.getByRole('button', { name: 'Create' }).click();

      const key = page.getByLabel('Key', { exact: true });
      const error = page.locator('.field-error[data-field="key"]');
      await error.waitFor();
      expect(await error.textContent()).toBe('contains invalid characters');
      // Tied to the input for assistive technology, and nothing at the form's top.
      expect(await key.getAttribute('aria-invalid')).toBe('true');
      expect(await key.getAttribute('aria-describedby')).toContain(await error.getAttribute('id'));
      expect(await page.locator('.form-error').count()).toBe(0);
      expect(page.url()).toMatch(/#\/settings\/namespaces\/new$/);
      await screenshot(page, 'namespace-invalid-key');

      // The API said no: nothing was created.
      expect((await server.api.post('/api/v1/namespaces', { key: 'bad key!', name: 'x' })).body.message).toBe('invalid field key: contains invalid characters');
      expect(expectStatus(await server.api.get('/api/v1/namespaces'), 200).namespaces.length).toBe(before);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('edits a namespace and deletes it through the confirm dialog', async () => {
    const key = unique('scratch');
    await createNamespace(server.api, key, 'Scratch');
    const { page, problems, close } = await openDashboard(browser, server.url, `/settings/namespaces/${key}`);
    try {
      expect(await page.getByLabel('Key', { exact: true }).getAttribute('readonly')).not.toBeNull();
      await page.getByLabel('Name', { exact: true }).fill('Scratch space');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText(`Namespace ${key} saved`).waitFor();
      expect(expectStatus(await server.api.get(`/api/v1/namespaces/${key}`), 200).name).toBe('Scratch space');

      await page.getByRole('button', { name: `Delete namespace ${key}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete namespace?' });
      await dialog.waitFor();
      await screenshot(page, 'namespace-delete-confirm');
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await page.getByText(`Namespace ${key} deleted`).waitFor();
      await page.getByRole('row', { name: new RegExp(key) }).waitFor({ state: 'detached' });
      expect((await server.api.get(`/api/v1/namespaces/${key}`)).status).toBe(404);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('keeps the namespace of a deep link after a reload, and the switcher moves to the same section', async () => {
    const key = unique('deep');
    await createNamespace(server.api, key, 'Deep');
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${key}/segments`);
    try {
      await page.reload();
      await settled(page);
      const switcher = page.getByLabel('Namespace', { exact: true });
      expect(await switcher.inputValue()).toBe(key);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Segments');
      await switcher.selectOption('default');
      await page.waitForURL(/#\/namespaces\/default\/segments$/);
      expect(await page.getByRole('link', { name: 'Flags' }).getAttribute('href')).toBe('#/namespaces/default/flags');
      // The namespace list is the API's.
      const listed = expectStatus(await server.api.get('/api/v1/namespaces'), 200).namespaces.map((n: { key: string }) => n.key);
      expect(await optionValues(switcher)).toEqual(listed);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
