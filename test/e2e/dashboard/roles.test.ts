import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { createSegment, logIn, startDashboard, stopDashboard, tokenAuth } from '../../support/dashboard';
import { unique } from '../../support/resources';
import { expectStatus, type TestServer } from '../../support/server';

/**
 * What each role sees in the dashboard, in Chromium against a real server with
 * `authorization.required`: a token per role (CreateToken's `role`), its grants read from
 * `/auth/v1/self`'s `io.pennon.auth.grants`, the controls it cannot use hidden or disabled
 * (session/permissions.ts) — and the server refusing them all the same (403 PermissionDenied).
 * The UI's reading of grants is unit-tested too (test/unit/dashboard-permissions.test.ts).
 */

const BOOTSTRAP = 'roles-bootstrap-secret';
const NS = 'default';

describeBrowser('dashboard: roles', () => {
  let server: TestServer;
  let browser: Browser;
  const flag = unique('role-flag');
  const segment = unique('role-segment');
  beforeAll(async () => {
    ({ server, browser } = await startDashboard({ server: { ...tokenAuth(BOOTSTRAP), PENNON_AUTHORIZATION_REQUIRED: 'true' } }));
    const api = admin();
    expectStatus(await api.post(`/api/v1/namespaces/${NS}/flags`, { key: flag, name: 'Role flag', type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
    expectStatus(await api.post(`/api/v1/namespaces/${NS}/flags/${flag}/variants`, { key: 'blue' }), 200);
    await createSegment(api, NS, { key: segment, name: 'Role segment', matchType: 'ALL_MATCH_TYPE' }, [{ type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro' }]);
  });
  afterAll(() => stopDashboard(browser, server));

  function admin() {
    return server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
  }

  /** A token holding `role` (CreateToken's `role` field), and its name. */
  async function tokenWith(role: 'viewer' | 'editor' | 'admin'): Promise<{ name: string; token: string }> {
    const name = unique(`${role}-token`);
    const created = expectStatus(await admin().post('/auth/v1/method/token', { name, role }), 200);
    return { name, token: created.clientToken };
  }

  async function signedIn(token: string, hash: string) {
    const opened = await openDashboard(browser, server.url, hash);
    await logIn(opened.page, token);
    await opened.page.waitForURL(new RegExp(`#${hash.replace(/[/]/g, '\\/')}$`));
    return opened;
  }

  const navLink = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

  it('a viewer reads and evaluates; nothing to create, edit, delete or reorder is offered, and the server refuses it anyway', async () => {
    const { name, token } = await tokenWith('viewer');
    const { page, problems, close } = await signedIn(token, `/namespaces/${NS}/flags`);
    try {
      await page.getByRole('button', { name: `Account: ${name}, viewer` }).waitFor();
      await page.getByTestId('role-banner').waitFor();
      expect(await page.getByTestId('role-banner').textContent()).toContain('Viewer.');
      // Reads work: the flag is listed.
      await page.getByRole('link', { name: flag }).waitFor();
      expect(await page.getByRole('link', { name: 'New flag' }).count()).toBe(0);
      await screenshot(page, 'role-viewer-flags');

      // The flag page: fields read-only, no change offered; the disabled switch says which role it needs.
      await page.getByRole('link', { name: flag }).click();
      await page.getByRole('heading', { name: 'Variants' }).waitFor();
      const main = page.locator('main');
      expect(await main.getByRole('button', { name: /^(New|Add|Delete|Edit|Save|Copy|Reorder)\b/ }).count()).toBe(0);
      expect(await page.getByLabel('Name', { exact: true }).getAttribute('readonly')).not.toBeNull();
      expect(await page.getByRole('switch', { name: 'Enabled' }).isDisabled()).toBe(true);
      expect(await page.locator('label.flag-switch').getAttribute('title')).toBe(`Needs the editor role in namespace ${NS}`);

      // A deep link to the new-flag form: Create disabled, titled.
      await page.goto(`${server.url}/#/namespaces/${NS}/flags/new`);
      const create = page.getByRole('button', { name: 'Create' });
      await create.waitFor();
      expect(await create.isDisabled()).toBe(true);
      expect(await create.getAttribute('title')).toBe(`Needs the editor role in namespace ${NS}`);

      // Segments: listed, none to create; the segment's constraints offer no edit.
      await navLink(page, 'Segments').click();
      await page.getByRole('link', { name: segment }).click();
      await page.getByRole('heading', { name: 'Constraints' }).waitFor();
      expect(await main.getByRole('button', { name: /^(New|Add|Delete|Edit|Save|Copy)\b/ }).count()).toBe(0);
      await navLink(page, 'Segments').click();
      expect(await page.getByRole('link', { name: 'New segment' }).count()).toBe(0);

      // The console evaluates.
      await navLink(page, 'Console').click();
      const box = page.getByRole('combobox', { name: 'Flag' });
      await box.fill(flag.slice(0, -3));
      await page.getByRole('listbox', { name: 'Flags' }).getByRole('option', { name: new RegExp(`^${flag}`) }).click();
      await page.getByLabel('Entity ID', { exact: true }).fill('user-1');
      await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
      await page.getByTestId('console-result').waitFor();

      // Namespaces: listed, none to create; API tokens not offered, and refused by the screen.
      await navLink(page, 'Namespaces').click();
      await page.locator(`tr[data-key="${NS}"]`).waitFor();
      expect(await page.getByRole('link', { name: 'New namespace' }).count()).toBe(0);
      expect(await navLink(page, 'API tokens').count()).toBe(0);
      await page.goto(`${server.url}/#/settings/tokens`);
      expect(await page.getByTestId('role-banner').textContent()).toContain('needs the admin role');

      // The server enforces: the same token cannot change anything.
      const viewer = server.api.withHeaders({ authorization: `Bearer ${token}` });
      expect((await viewer.post(`/api/v1/namespaces/${NS}/flags`, { key: unique('no'), name: 'No' })).status).toBe(403);
      expect((await viewer.delete(`/api/v1/namespaces/${NS}/flags/${flag}`)).status).toBe(403);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('an editor changes flags and segments, but is offered neither namespace changes nor API tokens', async () => {
    const { name, token } = await tokenWith('editor');
    const created = unique('editor-flag');
    const { page, problems, close } = await signedIn(token, `/namespaces/${NS}/flags`);
    try {
      await page.getByRole('button', { name: `Account: ${name}, editor` }).waitFor();
      expect(await page.getByTestId('role-banner').count()).toBe(0);
      await page.getByRole('link', { name: 'New flag' }).first().click();
      await page.getByLabel('Name', { exact: true }).fill(created);
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: 'Variants' }).waitFor();
      expectStatus(await admin().get(`/api/v1/namespaces/${NS}/flags/${created}`), 200);

      await navLink(page, 'Namespaces').click();
      await page.locator(`tr[data-key="${NS}"]`).waitFor();
      expect(await page.getByRole('link', { name: 'New namespace' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Delete namespace/ }).count()).toBe(0);
      expect(await navLink(page, 'API tokens').count()).toBe(0);
      await screenshot(page, 'role-editor-namespaces');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('an admin is offered everything: namespaces and API tokens', async () => {
    const { name, token } = await tokenWith('admin');
    const { page, problems, close } = await signedIn(token, '/settings/namespaces');
    try {
      await page.getByRole('button', { name: `Account: ${name}, admin` }).waitFor();
      await page.getByRole('link', { name: 'New namespace' }).waitFor();
      await navLink(page, 'API tokens').click();
      await page.getByRole('table', { name: 'API tokens' }).waitFor();
      await page.getByRole('button', { name: 'New token' }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
