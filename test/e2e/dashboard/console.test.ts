import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { crc32, thresholdValue } from '../../../internal/evaluation';
import { describeBrowser, openDashboard, screenshot } from '../../support/browser';
import { logIn, sidewaysOverflow, startDashboard, stopDashboard, tokenAuth } from '../../support/dashboard';
import { unique } from '../../support/resources';
import { expectStatus, type TestServer } from '../../support/server';

/**
 * The evaluation console in Chromium against a real server: the page shows the server's answer
 * for the same request the API answers, and the path to it (which rule matched, which
 * constraint failed on which value, the bucket), computed by the evaluator the server runs.
 */

const P = '/api/v1/namespaces/default';
const BOOTSTRAP = 'console-bootstrap-secret';

interface Seeded {
  variantFlag: string;
  booleanFlag: string;
  euSegment: string;
  proSegment: string;
}

/**
 * A variant flag with two rules — #1 on a segment (country = FR and age ≥ 18) the test's context
 * fails, #2 on a segment (plan = pro) it matches, split 50/50 — and a boolean flag with a 50%
 * threshold rollout answering true (false otherwise).
 */
async function seed(server: TestServer): Promise<Seeded> {
  const api = server.api;
  const s: Seeded = { variantFlag: unique('checkout'), booleanFlag: unique('dark-mode'), euSegment: unique('eu-adults'), proSegment: unique('pro-plan') };
  expectStatus(await api.post(`${P}/flags`, { key: s.variantFlag, name: 'Checkout', type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
  const control = expectStatus(await api.post(`${P}/flags/${s.variantFlag}/variants`, { key: 'control', attachment: '{"color":"grey"}' }), 200).id;
  const treatment = expectStatus(await api.post(`${P}/flags/${s.variantFlag}/variants`, { key: 'treatment', attachment: '{"color":"green","steps":2}' }), 200).id;
  expectStatus(await api.post(`${P}/segments`, { key: s.euSegment, name: 'EU adults', matchType: 'ALL_MATCH_TYPE' }), 200);
  expectStatus(await api.post(`${P}/segments/${s.euSegment}/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'country', operator: 'eq', value: 'FR' }), 200);
  expectStatus(await api.post(`${P}/segments/${s.euSegment}/constraints`, { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: '18' }), 200);
  expectStatus(await api.post(`${P}/segments`, { key: s.proSegment, name: 'Pro plan', matchType: 'ALL_MATCH_TYPE' }), 200);
  expectStatus(await api.post(`${P}/segments/${s.proSegment}/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro' }), 200);
  const rule1 = expectStatus(await api.post(`${P}/flags/${s.variantFlag}/rules`, { segmentKey: s.euSegment, rank: 1 }), 200).id;
  expectStatus(await api.post(`${P}/flags/${s.variantFlag}/rules/${rule1}/distributions`, { variantId: treatment, rollout: 100 }), 200);
  const rule2 = expectStatus(await api.post(`${P}/flags/${s.variantFlag}/rules`, { segmentKey: s.proSegment, rank: 2 }), 200).id;
  expectStatus(await api.post(`${P}/flags/${s.variantFlag}/rules/${rule2}/distributions`, { variantId: control, rollout: 50 }), 200);
  expectStatus(await api.post(`${P}/flags/${s.variantFlag}/rules/${rule2}/distributions`, { variantId: treatment, rollout: 50 }), 200);

  expectStatus(await api.post(`${P}/flags`, { key: s.booleanFlag, name: 'Dark mode', type: 'BOOLEAN_FLAG_TYPE', enabled: false }), 200);
  expectStatus(await api.post(`${P}/flags/${s.booleanFlag}/rollouts`, { rank: 1, threshold: { percentage: 50, value: true } }), 200);
  return s;
}

/** Picks a flag in the searchable select: type part of the key, choose the option. */
async function pickFlag(page: Page, key: string): Promise<void> {
  const box = page.getByRole('combobox', { name: 'Flag' });
  await box.fill(key.slice(0, -3));
  await page.getByRole('listbox', { name: 'Flags' }).getByRole('option', { name: new RegExp(`^${key}`) }).click();
  expect(await box.inputValue()).toBe(key);
}

describeBrowser('dashboard: console', () => {
  let server: TestServer;
  let secured: TestServer;
  let browser: Browser;
  let seeded: Seeded;
  beforeAll(async () => {
    ({ server, secured, browser } = await startDashboard({ server: {}, secured: tokenAuth(BOOTSTRAP) }));
    seeded = await seed(server);
  });
  afterAll(() => stopDashboard(browser, server, secured));

  it('evaluates in the console and explains the matched rule: rule #1 failed on the actual values, rule #2 matched, the bucket chose', async () => {
    const { page, problems, close } = await openDashboard(browser, server.url, '/namespaces/default/console');
    try {
      const flag = seeded.variantFlag;
      const entityId = unique('user');
      const context = { plan: 'pro', country: 'US' };
      await pickFlag(page, flag);
      expect(page.url()).toContain(`#/namespaces/default/console?flag=${flag}`);
      await page.getByLabel('Entity ID', { exact: true }).fill(entityId);
      await page.getByLabel('Context', { exact: true }).fill(JSON.stringify(context, null, 2));
      await page.getByRole('button', { name: 'Evaluate', exact: true }).click();

      // The server's answer for the same request, through the API.
      const expected = expectStatus(await server.api.post('/evaluate/v1/variant', { namespaceKey: 'default', flagKey: flag, entityId, context }), 200);
      expect(expected).toMatchObject({ match: true, reason: 'MATCH_EVALUATION_REASON', segmentKeys: [seeded.proSegment] });
      const result = page.getByTestId('console-result');
      await result.waitFor();
      expect(await result.getByTestId('result-value').textContent()).toBe(expected.variantKey);
      expect(await result.getByTestId('result-match').textContent()).toBe('yes');
      expect(await result.getByTestId('result-reason').textContent()).toContain('MATCH_EVALUATION_REASON');
      expect(await result.getByTestId('result-segments').textContent()).toBe(seeded.proSegment);
      expect(JSON.parse((await result.getByTestId('result-attachment').textContent())!)).toEqual(JSON.parse(expected.variantAttachment));
      expect(await result.getByTestId('result-duration').textContent()).toMatch(/^\d+\.\d{3} ms on the server · \d+ ms round trip$/);

      // The path: rule #1 failed on country (actual "US") and age (missing); rule #2 matched.
      const path = page.getByTestId('console-path');
      await path.waitFor();
      const rule1 = path.getByTestId('rule-1');
      expect(await rule1.getAttribute('data-state')).toBe('failed');
      const country = rule1.locator('tr[data-property="country"]');
      expect(await country.getAttribute('data-matched')).toBe('false');
      expect(await country.locator('td').allTextContents()).toEqual(['country (string)', 'eq', 'FR', 'US', '✗ failed']);
      const age = rule1.locator('tr[data-property="age"]');
      expect(await age.locator('td').allTextContents()).toEqual(['age (number)', 'gte', '18', 'missing', '✗ failed — the context has no value for this property']);
      const rule2 = path.getByTestId('rule-2');
      expect(await rule2.getAttribute('data-state')).toBe('matched');
      expect(await rule2.locator('tr[data-property="plan"] td').allTextContents()).toEqual(['plan (string)', 'eq', 'pro', 'pro', '✓ passed']);

      // The bucket: crc32(flagKey + entityId) % 1000 against 0–499 control, 500–999 treatment.
      const bucket = crc32(flag + entityId) % 1000;
      expect(expected.variantKey).toBe(bucket < 500 ? 'control' : 'treatment');
      const bar = rule2.getByTestId('console-bucket');
      expect(await bar.getAttribute('data-bucket')).toBe(String(bucket));
      expect(await bar.locator('p').first().textContent()).toContain(`Bucket ${bucket}`);
      expect(await bar.locator('tr[aria-current="true"] td').allTextContents()).toEqual([
        bucket < 500 ? '0–499' : '500–999',
        expected.variantKey,
        `50.0% ← bucket ${bucket}`,
      ]);
      // The why names the rule that answered and says the one before it did not match.
      expect(await path.getByTestId('console-why').textContent()).toBe(`Rule 2 matched (rule 1 did not): bucket ${bucket} falls in ${expected.variantKey}'s range.`);
      // The local run agrees with the server: no warning.
      expect(await page.getByTestId('console-mismatch').count()).toBe(0);
      await screenshot(page, 'console-explained');

      // The same screen in the dark theme.
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, 'console-explained-dark');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('refuses a context that is not a JSON object of strings beside the field, and sends nothing', async () => {
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/console?flag=${seeded.variantFlag}`);
    try {
      // The deep link chose the flag.
      expect(await page.getByRole('combobox', { name: 'Flag' }).inputValue()).toBe(seeded.variantFlag);
      const evaluations: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/evaluate/')) evaluations.push(r.url());
      });
      const contextBox = page.getByLabel('Context', { exact: true });
      await contextBox.fill('{"plan": "pro",}');
      await contextBox.press('Control+Enter');
      const error = page.locator('.field-error[data-field="context"]');
      await error.waitFor();
      expect(await error.textContent()).toBe('Not valid JSON at line 1, column 16: a comma before } is not allowed in JSON.');
      expect(await contextBox.getAttribute('aria-invalid')).toBe('true');
      expect(await contextBox.getAttribute('aria-describedby')).toContain(await error.getAttribute('id'));
      await screenshot(page, 'console-invalid-context');

      // A number is JSON, but Flipt's context is map<string, string>: said so, with a fix.
      await contextBox.fill('{"plan": "pro", "age": 42}');
      await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
      expect(await error.textContent()).toBe(
        'Context values must be strings — Flipt\'s context is map<string, string>: "age" is a number. Write it as text, e.g. "age": "42".',
      );
      expect(evaluations).toEqual([]);
      expect(await page.getByTestId('console-result').count()).toBe(0);
      await page.getByRole('button', { name: 'Write the values as strings' }).click();
      expect(JSON.parse(await contextBox.inputValue())).toEqual({ plan: 'pro', age: '42' });
      expect(await error.count()).toBe(0);
      await contextBox.press('Control+Enter');
      await page.getByTestId('console-result').waitFor();
      expect(evaluations).toHaveLength(1);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('explains a boolean flag by its threshold rollout', async () => {
    const { page, problems, close } = await openDashboard(browser, server.url, '/namespaces/default/console');
    try {
      const flag = seeded.booleanFlag;
      await pickFlag(page, flag);
      // An entity on each side of the 50% threshold: the first below it, then one above.
      for (const below of [true, false]) {
        let n = 0;
        while ((thresholdValue(`e-${n}`, flag) < 50) !== below) n++;
        const entityId = `e-${n}`;
        const value = thresholdValue(entityId, flag);
        await page.getByLabel('Entity ID', { exact: true }).fill(entityId);
        await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
        const expected = expectStatus(await server.api.post('/evaluate/v1/boolean', { namespaceKey: 'default', flagKey: flag, entityId, context: {} }), 200);
        expect(expected.enabled).toBe(below);
        await page.locator(`[data-testid="console-result"]:has-text("${entityId}")`).waitFor();
        expect(await page.getByTestId('result-value').textContent()).toBe(String(expected.enabled));
        expect(await page.getByTestId('result-reason').textContent()).toContain(expected.reason);
        const rollout = page.getByTestId('rollout-1');
        expect(await rollout.getAttribute('data-state')).toBe(below ? 'matched' : 'failed');
        expect(await rollout.locator('.console-step-head').textContent()).toContain('Rollout #1threshold 50% → true');
        const threshold = rollout.getByTestId('console-threshold');
        expect(await threshold.getAttribute('data-value')).toBe(String(value));
        expect(await threshold.locator('p').textContent()).toBe(
          below
            ? `Value ${value} of 0–99 — crc32(entity ID + flag key) % 100: below 50, so this rollout answers true`
            : `Value ${value} of 0–99 — crc32(entity ID + flag key) % 100: not below 50: the next rollout decides`,
        );
        expect(await page.getByTestId('console-why').textContent()).toBe(
          below ? `Rollout 1 matched: threshold value ${value} is below 50%, so true.` : "Rollout 1 did not match: the flag's enabled value (false).",
        );
        if (below) await screenshot(page, 'console-boolean-threshold');
      }
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('says, when no rule matched, which rules were tried and that the default answered', async () => {
    const flag = unique('fallback');
    expectStatus(await server.api.post(`${P}/flags`, { key: flag, name: 'Fallback', type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
    const a = expectStatus(await server.api.post(`${P}/flags/${flag}/variants`, { key: 'a' }), 200);
    const b = expectStatus(await server.api.post(`${P}/flags/${flag}/variants`, { key: 'b' }), 200).id;
    expectStatus(await server.api.put(`${P}/flags/${flag}`, { name: 'Fallback', enabled: true, defaultVariantId: a.id }), 200);
    const rule = expectStatus(await server.api.post(`${P}/flags/${flag}/rules`, { segmentKey: seeded.proSegment, rank: 1 }), 200).id;
    expectStatus(await server.api.post(`${P}/flags/${flag}/rules/${rule}/distributions`, { variantId: b, rollout: 100 }), 200);
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/console?flag=${flag}`);
    try {
      await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
      const why = page.getByTestId('console-why');
      await why.waitFor();
      expect(await page.getByTestId('result-reason').textContent()).toContain('DEFAULT_EVALUATION_REASON');
      expect(await why.textContent()).toBe('Rule 1 did not match: the default variant a.');
      await page.getByLabel('Context', { exact: true }).fill('{"plan": "pro"}');
      await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
      await page.getByTestId('console-why').getByText(/^Rule 1 matched: bucket \d+ falls in b's range\.$/).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows the equivalent curl and pennon evaluate commands; the curl request gives the same answer', async () => {
    const { page, context, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/console?flag=${seeded.variantFlag}`);
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      const entityId = "o'brien 1";
      await page.getByLabel('Entity ID', { exact: true }).fill(entityId);
      await page.getByLabel('Context', { exact: true }).fill('{"plan": "pro", "country": "US"}');
      await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
      await page.getByTestId('console-result').waitFor();

      const body = JSON.stringify({ namespaceKey: 'default', flagKey: seeded.variantFlag, entityId, context: { plan: 'pro', country: 'US' } });
      const curl = await page.getByTestId('curl-command').textContent();
      expect(curl).toBe(
        [
          `curl -sS -X POST ${server.url}/evaluate/v1/variant`,
          `-H 'Content-Type: application/json'`,
          `-d '${body.replace(/'/g, `'\\''`)}'`,
        ].join(' \\\n  '),
      );
      expect(await page.getByTestId('pennon-command').textContent()).toBe(
        `pennon evaluate ${seeded.variantFlag} --namespace default --entity-id 'o'\\''brien 1' --context plan=pro --context country=US --address ${server.url}`,
      );

      // What curl would send: the URL and the body read back from the command's words.
      const url = /-X POST (\S+)/.exec(curl!)![1];
      const sent = /-d '((?:[^']|'\\'')*)'$/.exec(curl!)![1].replace(/'\\''/g, "'");
      const viaCurl = await (await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: sent })).json() as { variantKey: string; segmentKeys: string[] };
      expect(viaCurl.variantKey).toBe(await page.getByTestId('result-value').textContent());
      expect(viaCurl.segmentKeys).toEqual([seeded.proSegment]);

      // The copy button puts the same text on the clipboard.
      await page.getByRole('button', { name: 'Copy curl command' }).click();
      await page.getByText('curl command copied').waitFor();
      const clipboard = await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());
      expect(clipboard).toBe(curl);
      await screenshot(page, 'console-commands');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('says so when the flag changed between the evaluation and the reads that explain it', async () => {
    // A flag whose one rule is changed by the test while the console explains: the API is
    // delayed only for the rules read, so the evaluation and the explanation see different flags.
    const flag = unique('moving');
    const api = server.api;
    expectStatus(await api.post(`${P}/flags`, { key: flag, name: 'Moving', type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
    const a = expectStatus(await api.post(`${P}/flags/${flag}/variants`, { key: 'a' }), 200).id;
    const b = expectStatus(await api.post(`${P}/flags/${flag}/variants`, { key: 'b' }), 200).id;
    const rule = expectStatus(await api.post(`${P}/flags/${flag}/rules`, { segmentKey: seeded.proSegment, rank: 1 }), 200).id;
    const dist = expectStatus(await api.post(`${P}/flags/${flag}/rules/${rule}/distributions`, { variantId: a, rollout: 100 }), 200).id;
    const { page, problems, close } = await openDashboard(browser, server.url, `/namespaces/default/console?flag=${flag}`);
    try {
      await page.route(`**/api/v1/namespaces/default/flags/${flag}/rules**`, async (route) => {
        // Between the evaluation and this read, the rule's only distribution moves to variant b.
        expectStatus(await api.put(`${P}/flags/${flag}/rules/${rule}/distributions/${dist}`, { variantId: b, rollout: 100 }), 200);
        await route.continue();
      });
      await page.getByLabel('Context', { exact: true }).fill('{"plan": "pro"}');
      await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
      const warning = page.getByTestId('console-mismatch');
      await warning.waitFor();
      expect(await page.getByTestId('result-value').textContent()).toBe('a');
      expect(await warning.textContent()).toContain('variant: the server answered "a", the flag as read now gives "b"');
      await page.unroute(`**/api/v1/namespaces/default/flags/${flag}/rules**`);
      await warning.getByRole('button', { name: 'Evaluate again' }).click();
      await warning.waitFor({ state: 'detached' });
      expect(await page.getByTestId('result-value').textContent()).toBe('b');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
  it('works from the keyboard alone and in a narrow window', async () => {
    const { page, problems, close } = await openDashboard(browser, server.url, '/namespaces/default/console', { width: 390, height: 800 });
    try {
      const box = page.getByRole('combobox', { name: 'Flag' });
      await box.focus();
      await page.keyboard.type(seeded.booleanFlag);
      expect(await box.getAttribute('aria-expanded')).toBe('true');
      expect(await page.getByRole('listbox', { name: 'Flags' }).getByRole('option').allTextContents()).toEqual([expect.stringMatching(new RegExp(`^${seeded.booleanFlag}`))]);
      await page.keyboard.press('Enter');
      expect(await box.getAttribute('aria-expanded')).toBe('false');
      expect(await box.inputValue()).toBe(seeded.booleanFlag);
      // On to the entity ID, its random-ID button, the context; Ctrl+Enter evaluates from there.
      await page.keyboard.press('Tab');
      await page.keyboard.type('narrow-1');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      const entity = await page.getByLabel('Entity ID', { exact: true }).inputValue();
      expect(entity).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Control+Enter');
      await page.getByTestId('console-path').waitFor();
      const expected = expectStatus(await server.api.post('/evaluate/v1/boolean', { namespaceKey: 'default', flagKey: seeded.booleanFlag, entityId: entity, context: {} }), 200);
      expect(await page.getByTestId('result-value').textContent()).toBe(String(expected.enabled));
      // Nothing wider than the window (tables scroll in their own boxes).
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, 'console-narrow');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('keeps a ?flag= deep link through the login, and the commands carry the token placeholder', async () => {
    const admin = secured.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
    const flag = unique('secured');
    expectStatus(await admin.post(`${P}/flags`, { key: flag, name: 'Secured', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
    const { page, problems, close } = await openDashboard(browser, secured.url, `/namespaces/default/console?flag=${flag}`);
    try {
      await logIn(page, BOOTSTRAP);
      await page.waitForURL(new RegExp(`#/namespaces/default/console\\?flag=${flag}$`));
      expect(await page.getByRole('combobox', { name: 'Flag' }).inputValue()).toBe(flag);
      await page.getByLabel('Entity ID', { exact: true }).fill('u1');
      const curl = (await page.getByTestId('curl-command').textContent())!;
      expect(curl.split(' \\\n  ')).toEqual([
        `curl -sS -X POST ${secured.url}/evaluate/v1/boolean`,
        `-H 'Content-Type: application/json'`,
        '-H "Authorization: Bearer $PENNON_TOKEN"',
        `-d '{"namespaceKey":"default","flagKey":"${flag}","entityId":"u1","context":{}}'`,
      ]);
      expect(await page.getByTestId('pennon-command').textContent()).toBe(
        `pennon evaluate ${flag} --namespace default --entity-id u1 --address ${secured.url} --token "$PENNON_TOKEN"`,
      );
      await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
      expect(await page.getByTestId('result-value').textContent()).toBe('true');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
