import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { createNamespace, createSegment, optionValues, rowKeys, sidewaysOverflow, startDashboard, stopDashboard } from '../../support/dashboard';
import { unique } from '../../support/resources';
import { expectStatus, startServer, type TestServer } from '../../support/server';

/**
 * Segments through the dashboard, in Chromium, against a real server: the list (search, sort,
 * pages), a segment with constraints made in the UI, the operator picker following the
 * comparison type, the server's refusals beside the field they concern, copy and delete. Each
 * journey checks what the API then holds.
 */

/** Flipt's operators per comparison type (`rpc/flipt/operators.go`), in the picker's order. */
const OPERATORS = {
  STRING_COMPARISON_TYPE: ['eq', 'neq', 'empty', 'notempty', 'prefix', 'suffix', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
  NUMBER_COMPARISON_TYPE: ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent', 'isoneof', 'isnotoneof'],
  BOOLEAN_COMPARISON_TYPE: ['true', 'false', 'present', 'notpresent'],
  DATETIME_COMPARISON_TYPE: ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent', 'isoneof', 'isnotoneof'],
  ENTITY_ID_COMPARISON_TYPE: ['eq', 'neq', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
};

/** Opens "Add constraint" on a segment's page and returns the dialog. */
async function openConstraintDialog(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Add constraint' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add constraint' });
  await dialog.waitFor();
  return dialog;
}

describeBrowser('dashboard: segments', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => ({ server, browser } = await startDashboard()));
  afterAll(() => stopDashboard(browser, server));

  it('creates a segment with two constraints (string equals, number greater than); the API holds them', async () => {
    const ns = unique('seg-new');
    await createNamespace(server.api, ns, 'Segments journey');
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/segments`);
    try {
      // An empty namespace: the empty state offers the way forward.
      await page.getByText('No segments yet.').waitFor();
      await page.getByRole('link', { name: 'New segment' }).click();
      await page.waitForURL(/\/segments\/new$/);

      // The key follows the name (lower case, blanks to "-", other characters dropped) until edited.
      await page.getByLabel('Name', { exact: true }).fill('Beta (EU) Users');
      expect(await page.getByLabel('Key', { exact: true }).inputValue()).toBe('beta-eu-users');
      const key = unique('beta-eu-users');
      await page.getByLabel('Key', { exact: true }).fill(key);
      await page.getByLabel('Name', { exact: true }).fill('Beta EU users');
      expect(await page.getByLabel('Key', { exact: true }).inputValue()).toBe(key);
      await page.getByRole('radio', { name: /^Any/ }).check();
      await page.getByLabel('Description', { exact: true }).fill('Testers in Europe');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByText(`Segment ${key} created`).waitFor();
      await page.waitForURL(new RegExp(`#/namespaces/${ns}/segments/${key}$`));
      await page.getByText('No constraints yet.').waitFor();

      // country equals FR
      let dialog = await openConstraintDialog(page);
      expect(await dialog.getByLabel('Type', { exact: true }).inputValue()).toBe('STRING_COMPARISON_TYPE');
      await dialog.getByLabel('Property', { exact: true }).fill('country');
      await dialog.getByLabel('Operator', { exact: true }).selectOption({ label: 'equals' });
      await dialog.getByLabel('Value', { exact: true }).fill('FR');
      await dialog.getByLabel('Description', { exact: true }).fill('France');
      await screenshot(page, 'segment-constraint-dialog');
      await dialog.getByRole('button', { name: 'Add constraint' }).click();
      await page.getByText('Constraint on country added').waitFor();
      await dialog.waitFor({ state: 'hidden' });

      // age is greater than 18
      dialog = await openConstraintDialog(page);
      await dialog.getByLabel('Type', { exact: true }).selectOption('NUMBER_COMPARISON_TYPE');
      await dialog.getByLabel('Property', { exact: true }).fill('age');
      await dialog.getByLabel('Operator', { exact: true }).selectOption({ label: 'is greater than' });
      expect(await dialog.getByLabel('Value', { exact: true }).getAttribute('type')).toBe('number');
      await dialog.getByLabel('Value', { exact: true }).fill('18');
      await dialog.getByRole('button', { name: 'Add constraint' }).click();
      await page.getByText('Constraint on age added').waitFor();

      const rows = page.getByRole('table', { name: 'Constraints' }).locator('tbody tr');
      await expect.poll(() => rows.count()).toBe(2);
      expect(await rows.nth(0).innerText()).toMatch(/country\s+String\s+equals eq\s+FR\s+France/);
      expect(await rows.nth(1).innerText()).toMatch(/age\s+Number\s+is greater than gt\s+18/);
      await screenshot(page, 'segment-detail');

      const held = expectStatus(await server.api.get(`/api/v1/namespaces/${ns}/segments/${key}`), 200);
      expect(held).toMatchObject({ key, name: 'Beta EU users', description: 'Testers in Europe', matchType: 'ANY_MATCH_TYPE' });
      expect(held.constraints.map((c: Record<string, string>) => [c.type, c.property, c.operator, c.value, c.description])).toEqual([
        ['STRING_COMPARISON_TYPE', 'country', 'eq', 'FR', 'France'],
        ['NUMBER_COMPARISON_TYPE', 'age', 'gt', '18', ''],
      ]);

      // Edit a constraint and the segment's details.
      await page.getByRole('button', { name: 'Edit constraint on age' }).click();
      dialog = page.getByRole('dialog', { name: 'Edit constraint' });
      expect(await dialog.getByLabel('Value', { exact: true }).inputValue()).toBe('18');
      await dialog.getByLabel('Operator', { exact: true }).selectOption('gte');
      await dialog.getByLabel('Value', { exact: true }).fill('21');
      await dialog.getByRole('button', { name: 'Save constraint' }).click();
      await page.getByText('Constraint on age saved').waitFor();
      await page.getByRole('radio', { name: /^All/ }).check();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText(`Segment ${key} saved`).waitFor();
      const edited = expectStatus(await server.api.get(`/api/v1/namespaces/${ns}/segments/${key}`), 200);
      expect(edited.matchType).toBe('ALL_MATCH_TYPE');
      expect(edited.constraints[1]).toMatchObject({ property: 'age', operator: 'gte', value: '21' });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('offers exactly the operators of the comparison type picked, and the value input the operator calls for', async () => {
    const key = unique('pickers');
    await createSegment(server.api, 'default', { key, name: 'Pickers' });
    // New York in January is UTC-5: a local date-time is sent five hours later, in UTC.
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/segments/${key}`, { timezoneId: 'America/New_York' });
    try {
      const dialog = await openConstraintDialog(page);
      const type = dialog.getByLabel('Type', { exact: true });
      const operator = dialog.getByLabel('Operator', { exact: true });
      for (const [comparison, expected] of Object.entries(OPERATORS)) {
        await type.selectOption(comparison);
        expect(await optionValues(operator), comparison).toEqual(expected);
      }
      // Readable labels, per type.
      await type.selectOption('STRING_COMPARISON_TYPE');
      expect(await operator.locator('option').allTextContents()).toEqual([
        'equals', 'does not equal', 'is empty', 'is not empty', 'starts with', 'ends with', 'is one of', 'is not one of', 'contains', 'does not contain',
      ]);
      await type.selectOption('DATETIME_COMPARISON_TYPE');
      expect(await operator.locator('option', { hasText: 'is after' }).getAttribute('value')).toBe('gt');

      // No value for "is present"; a list for "is one of"; a date-time input for datetimes.
      await type.selectOption('NUMBER_COMPARISON_TYPE');
      await operator.selectOption('present');
      await dialog.getByText('This operator takes no value.').waitFor();
      expect(await dialog.getByLabel('Value', { exact: true }).count()).toBe(0);
      await type.selectOption('BOOLEAN_COMPARISON_TYPE');
      expect(await operator.inputValue()).toBe('present');
      await operator.selectOption('true');
      await dialog.getByText('This operator takes no value.').waitFor();
      await type.selectOption('DATETIME_COMPARISON_TYPE');
      expect(await operator.inputValue()).toBe('eq');
      expect(await dialog.getByLabel('Value', { exact: true }).getAttribute('type')).toBe('datetime-local');
      // Entity ID constraints compare the entityId property.
      await type.selectOption('ENTITY_ID_COMPARISON_TYPE');
      expect(await dialog.getByLabel('Property', { exact: true }).inputValue()).toBe('entityId');

      // A datetime, entered in local time, is sent in UTC.
      await type.selectOption('DATETIME_COMPARISON_TYPE');
      await dialog.getByLabel('Property', { exact: true }).fill('signed_up');
      await operator.selectOption({ label: 'is after' });
      await dialog.getByLabel('Value', { exact: true }).fill('2030-01-02T03:04:05');
      const utc = '2030-01-02T08:04:05Z';
      await dialog.getByText(`sent as ${utc}`).waitFor();
      await dialog.getByRole('button', { name: 'Add constraint' }).click();
      await page.getByText('Constraint on signed_up added').waitFor();

      // A list: two items, the second added with Enter.
      const again = await openConstraintDialog(page);
      await again.getByLabel('Property', { exact: true }).fill('plan');
      await again.getByLabel('Operator', { exact: true }).selectOption({ label: 'is one of' });
      await again.getByLabel('Value 1', { exact: true }).fill('pro');
      await again.getByLabel('Value 1', { exact: true }).press('Enter');
      await again.getByLabel('Value 2', { exact: true }).fill('enterprise');
      await again.getByRole('button', { name: 'Add constraint' }).click();
      await page.getByText('Constraint on plan added').waitFor();
      await page.locator('.segment-chip', { hasText: 'enterprise' }).waitFor();

      const held = expectStatus(await server.api.get(`/api/v1/namespaces/default/segments/${key}`), 200);
      expect(held.constraints.map((c: Record<string, string>) => [c.type, c.property, c.operator, c.value])).toEqual([
        ['DATETIME_COMPARISON_TYPE', 'signed_up', 'gt', utc],
        ['STRING_COMPARISON_TYPE', 'plan', 'isoneof', '["pro","enterprise"]'],
      ]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows the server’s refusal of a constraint beside its value, and saves nothing', async () => {
    const key = unique('invalid');
    await createSegment(server.api, 'default', { key, name: 'Invalid' });
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/segments/${key}`);
    try {
      const dialog = await openConstraintDialog(page);
      await dialog.getByLabel('Type', { exact: true }).selectOption('NUMBER_COMPARISON_TYPE');
      await dialog.getByLabel('Property', { exact: true }).fill('age');
      await dialog.getByLabel('Operator', { exact: true }).selectOption({ label: 'is one of' });
      await dialog.getByLabel('Value 1', { exact: true }).fill('18');
      await dialog.getByRole('button', { name: 'Add value' }).click();
      await dialog.getByLabel('Value 2', { exact: true }).fill('abc');
      await dialog.getByRole('button', { name: 'Add constraint' }).click();

      const error = dialog.locator('.field-error[data-field="value"]');
      await error.waitFor();
      expect(await error.textContent()).toBe('invalid value provided for property "age" of type number');
      expect(await dialog.getByLabel('Value 2', { exact: true }).getAttribute('aria-invalid')).toBe('true');
      expect(await dialog.locator('.form-error').count()).toBe(0);
      await screenshot(page, 'segment-constraint-invalid');

      // An empty value: Flipt's `invalid field value: must not be empty`, beside the value too.
      await dialog.getByLabel('Type', { exact: true }).selectOption('STRING_COMPARISON_TYPE');
      await dialog.getByLabel('Property', { exact: true }).fill('country');
      await dialog.getByLabel('Operator', { exact: true }).selectOption('eq');
      await dialog.getByRole('button', { name: 'Add constraint' }).click();
      await expect.poll(() => error.textContent()).toBe('must not be empty');

      expect(expectStatus(await server.api.get(`/api/v1/namespaces/default/segments/${key}`), 200).constraints).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('deletes a segment: refused, naming the flag and rule that use it, while a rule uses it; then deleted', async () => {
    const key = unique('doomed');
    const flag = unique('uses-segment');
    await createSegment(server.api, 'default', { key, name: 'Doomed' }, [{ type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' }]);
    expectStatus(await server.api.post('/api/v1/namespaces/default/flags', { key: flag, name: flag, type: 'VARIANT_FLAG_TYPE' }), 200);
    const rule = expectStatus(await server.api.post(`/api/v1/namespaces/default/flags/${flag}/rules`, { segmentKey: key, rank: 1 }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/segments/${key}`);
    try {
      await page.getByRole('button', { name: `Delete segment ${key}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete segment?' });
      await dialog.getByRole('button', { name: 'Delete' }).click();
      // Which flag and rule use it, read through the API: not the server's `segment "default/…" is in use`.
      await dialog.getByText(`Segment ${key} is used by flag ${flag} (rule 1). It can be deleted once no rule or rollout uses it.`).waitFor();
      await screenshot(page, 'segment-delete-in-use');
      expect((await server.api.get(`/api/v1/namespaces/default/segments/${key}`)).status).toBe(200);

      expectStatus(await server.api.delete(`/api/v1/namespaces/default/flags/${flag}/rules/${rule.id}`), 200);
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await page.getByText(`Segment ${key} deleted`).waitFor();
      await page.waitForURL(/#\/namespaces\/default\/segments$/);
      expect((await server.api.get(`/api/v1/namespaces/default/segments/${key}`)).status).toBe(404);
      expect(await page.locator(`tr[data-key="${key}"]`).count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('copies a segment with its constraints to another namespace; a second copy is refused beside the picker', async () => {
    const key = unique('copied');
    const target = unique('copy-target');
    await createNamespace(server.api, target, 'Copy target');
    await createSegment(server.api, 'default', { key, name: 'Copied', matchType: 'ANY_MATCH_TYPE' }, [{ type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'lt', value: '30' }]);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/segments/${key}`);
    try {
      for (const attempt of [1, 2]) {
        await page.getByRole('button', { name: 'Copy to namespace' }).click();
        const dialog = page.getByRole('dialog', { name: 'Copy segment to namespace' });
        await dialog.getByLabel('Target namespace', { exact: true }).selectOption(target);
        await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
        if (attempt === 1) {
          await page.getByText(`Segment ${key} copied to ${target}`).waitFor();
          continue;
        }
        const error = dialog.locator('.field-error[data-field="namespaceKey"]');
        await error.waitFor();
        expect(await error.textContent()).toBe(`A segment with key ${key} already exists in namespace ${target}.`);
        await dialog.getByRole('button', { name: 'Cancel' }).click();
      }
      const copy = expectStatus(await server.api.get(`/api/v1/namespaces/${target}/segments/${key}`), 200);
      expect(copy).toMatchObject({ key, name: 'Copied', matchType: 'ANY_MATCH_TYPE' });
      expect(copy.constraints).toMatchObject([{ type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'lt', value: '30' }]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('lists segments with search, sorting and pages of 20', async () => {
    const ns = unique('seg-list');
    await createNamespace(server.api, ns, 'Many segments');
    for (let i = 1; i <= 23; i++) {
      const n = String(i).padStart(2, '0');
      const matchType = i % 3 ? 'ALL_MATCH_TYPE' : 'ANY_MATCH_TYPE';
      await createSegment(server.api, ns, { key: `segment-${n}`, name: i % 2 ? `Odd ${n}` : `Even ${n}`, description: i === 7 ? 'The lucky one' : '', matchType });
    }
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/${ns}/segments`);
    try {
      const keys = () => rowKeys(page);
      await expect.poll(keys).toHaveLength(20);
      expect((await keys())[0]).toBe('segment-01');
      await page.getByText('1–20 of 23 segments').waitFor();
      await screenshot(page, 'segments-list');
      await page.getByRole('button', { name: 'Next' }).click();
      expect(await keys()).toEqual(['segment-21', 'segment-22', 'segment-23']);

      // Sorting by key again reverses it; the header says how it is sorted.
      await page.getByRole('button', { name: /^Key/ }).click();
      await expect.poll(keys).toHaveLength(20);
      expect((await keys())[0]).toBe('segment-23');
      expect(await page.locator('th', { has: page.getByRole('button', { name: /^Key/ }) }).getAttribute('aria-sort')).toBe('descending');

      // Search narrows to key, name or description.
      await page.getByRole('searchbox', { name: 'Search segments' }).fill('lucky');
      expect(await keys()).toEqual(['segment-07']);
      await page.getByRole('searchbox', { name: 'Search segments' }).fill('even 1');
      expect(await keys()).toEqual(['segment-18', 'segment-16', 'segment-14', 'segment-12', 'segment-10']);
      await page.getByRole('searchbox', { name: 'Search segments' }).fill('nothing like this');
      await page.getByText('No segment matches.').waitFor();

      const listed = expectStatus(await server.api.get(`/api/v1/namespaces/${ns}/segments`), 200);
      expect(listed.totalCount).toBe(23);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('fits a narrow window in the dark theme, and works from the keyboard', async () => {
    const key = unique('narrow');
    await createSegment(server.api, 'default', { key, name: 'Narrow' }, [{ type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'isoneof', value: '["free","pro"]' }]);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/segments/${key}`, { width: 420, height: 800, colorScheme: 'dark' });
    try {
      await page.locator('.segment-chip', { hasText: 'pro' }).waitFor();
      // The page itself never scrolls sideways (a wide table scrolls inside its box).
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, 'segment-detail-narrow-dark');

      // Keyboard only: open the editor, pick a type and an operator, type a value, save.
      await page.getByRole('button', { name: 'Add constraint' }).focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Add constraint' });
      await dialog.waitFor();
      await dialog.getByLabel('Type', { exact: true }).focus();
      await page.keyboard.press('Tab');
      await page.keyboard.type('country');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.type('DE');
      await page.keyboard.press('Enter');
      await page.getByText('Constraint on country added').waitFor();
      const held = expectStatus(await server.api.get(`/api/v1/namespaces/default/segments/${key}`), 200);
      expect(held.constraints[1]).toMatchObject({ property: 'country', operator: 'eq', value: 'DE' });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('edits date-times in UTC when the dashboard shows times in UTC (Settings → General)', async () => {
    const key = unique('utc');
    await createSegment(server.api, 'default', { key, name: 'UTC' });
    const { page, problems, close } = await openDashboard(browser, server.url, '/settings/general', { timezoneId: 'America/New_York' });
    try {
      await page.getByRole('radio', { name: /UTC/ }).check();
      await page.goto(`${server.url}/#/namespaces/default/segments/${key}`);
      const dialog = await openConstraintDialog(page);
      await dialog.getByLabel('Type', { exact: true }).selectOption('DATETIME_COMPARISON_TYPE');
      await dialog.getByLabel('Property', { exact: true }).fill('renewal');
      await dialog.getByLabel('Operator', { exact: true }).selectOption({ label: 'is before' });
      await dialog.getByLabel('Value', { exact: true }).fill('2030-01-02T03:04:05');
      await dialog.getByText('UTC; sent as 2030-01-02T03:04:05Z.').waitFor();
      await dialog.getByRole('button', { name: 'Add constraint' }).click();
      await page.getByText('Constraint on renewal added').waitFor();
      const held = expectStatus(await server.api.get(`/api/v1/namespaces/default/segments/${key}`), 200);
      expect(held.constraints).toMatchObject([{ property: 'renewal', operator: 'lt', value: '2030-01-02T03:04:05Z' }]);
      // Shown in UTC too, and edited as it was entered.
      await page.getByRole('table', { name: 'Constraints' }).getByText('UTC').waitFor();
      await page.getByRole('button', { name: 'Edit constraint on renewal' }).click();
      expect(await page.getByRole('dialog', { name: 'Edit constraint' }).getByLabel('Value', { exact: true }).inputValue()).toBe('2030-01-02T03:04:05');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows segments and constraints without any write control on a read-only instance', async () => {
    const key = unique('read-only');
    await createSegment(server.api, 'default', { key, name: 'Read only' }, [{ type: 'BOOLEAN_COMPARISON_TYPE', property: 'beta', operator: 'true' }]);
    const readOnly = await startServer({ PENNON_DB_URL: server.dbUrl, PENNON_STORAGE_READ_ONLY: 'true' });
    const { page, problems, close } = await openDashboard(browser, readOnly.url, '/namespaces/default/segments');
    try {
      await page.getByTestId('read-only-banner').waitFor();
      await page.getByRole('link', { name: key }).click();
      await page.getByRole('table', { name: 'Constraints' }).getByText('is true').waitFor();
      for (const name of ['Add constraint', 'Copy to namespace', 'Save', 'Edit constraint on beta', 'Delete constraint on beta', `Delete segment ${key}`]) {
        expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
      }
      expect(await page.getByLabel('Name', { exact: true }).getAttribute('readonly')).not.toBeNull();
      expect(await page.getByLabel('Description', { exact: true }).getAttribute('readonly')).not.toBeNull();
      await page.getByRole('link', { name: 'Segments', exact: true }).first().click();
      await page.locator(`tr[data-key="${key}"]`).waitFor();
      expect(await page.getByRole('link', { name: 'New segment' }).count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await close();
      await readOnly.stop();
    }
  });
});
