import type { Browser, Page } from 'playwright-core';
import { startDashboard, stopDashboard } from './dashboard';
import { unique } from './resources';
import { expectStatus, type TestServer } from './server';

/** Seeding and reading back rules and rollouts for the rules and rollouts browser tests. */

export interface Rule {
  id: string;
  rank: number;
  segmentKey: string;
  segmentKeys: string[];
  segmentOperator: string;
  distributions: { id: string; variantId: string; rollout: number }[];
}
export interface Rollout {
  id: string;
  rank: number;
  type: string;
  description: string;
  threshold?: { percentage: number; value: boolean };
  segment?: { segmentKey: string; segmentKeys: string[]; segmentOperator: string; value: boolean };
}

/**
 * The rules and rollouts suites' start: Chromium and a server (startDashboard), a namespace of
 * the suite's own (`prefix-…`: a retried file finds none of its earlier data) and a kit for it.
 * Stopped with `stopDashboard(browser, server)`; if the namespace cannot be made, both are
 * stopped here, since the suite never gets them to stop.
 */
export async function startRulesSuite(prefix: string): Promise<{ server: TestServer; browser: Browser; ns: string; kit: ReturnType<typeof rulesKit> }> {
  const { server, browser } = await startDashboard();
  try {
    const ns = unique(prefix);
    expectStatus(await server.api.post('/api/v1/namespaces', { key: ns, name: 'Rules' }), 200);
    return { server, browser, ns, kit: rulesKit(server, ns) };
  } catch (err) {
    await stopDashboard(browser, server);
    throw err;
  }
}

/** Seeds through the API of `server`, in namespace `ns`, and reads back what it holds. */
export function rulesKit(server: TestServer, ns: string) {
  const flagUrl = (key: string) => `/api/v1/namespaces/${ns}/flags/${key}`;

  /** A variant flag with these variants; returns the variants' ids by key. */
  async function variantFlag(key: string, variants: string[]): Promise<Record<string, string>> {
    expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/flags`, { key, name: key, type: 'VARIANT_FLAG_TYPE', enabled: true }), 200);
    const ids: Record<string, string> = {};
    for (const v of variants) ids[v] = expectStatus(await server.api.post(`${flagUrl(key)}/variants`, { key: v, name: v }), 200).id;
    return ids;
  }

  async function segment(key: string, constraints: { property: string; operator: string; value: string; type?: string }[] = []): Promise<string> {
    expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/segments`, { key, name: key, matchType: 'ALL_MATCH_TYPE' }), 200);
    for (const c of constraints) expectStatus(await server.api.post(`/api/v1/namespaces/${ns}/segments/${key}/constraints`, { type: 'STRING_COMPARISON_TYPE', ...c }), 200);
    return key;
  }

  const rulesOf = async (flag: string): Promise<Rule[]> => expectStatus(await server.api.get(`${flagUrl(flag)}/rules`), 200).rules;
  const rolloutsOf = async (flag: string): Promise<Rollout[]> => expectStatus(await server.api.get(`${flagUrl(flag)}/rollouts`), 200).rules;
  const keysOf = (r: { segmentKey: string; segmentKeys: string[] }) => (r.segmentKeys.length > 0 ? r.segmentKeys : [r.segmentKey]);
  /** A variant flag with three rules (segments r1, r2, r3 at ranks 1..3); returns the rule ids and segment keys. */
  async function threeRules(prefix: string) {
    const flag = unique(prefix);
    const variants = await variantFlag(flag, ['on']);
    const segs = [await segment(unique('r1')), await segment(unique('r2')), await segment(unique('r3'))];
    const ids: string[] = [];
    for (const [i, s] of segs.entries()) {
      const rule = expectStatus(await server.api.post(`${flagUrl(flag)}/rules`, { segmentKey: s, rank: i + 1 }), 200);
      expectStatus(await server.api.post(`${flagUrl(flag)}/rules/${rule.id}/distributions`, { variantId: variants.on, rollout: 100 }), 200);
      ids.push(rule.id);
    }
    return { flag, ids, segs };
  }
  const ranked = async (flag: string) => (await rulesOf(flag)).sort((a, b) => a.rank - b.rank).map((r) => [r.rank, r.id]);
  return { flagUrl, variantFlag, segment, rulesOf, rolloutsOf, keysOf, threeRules, ranked };
}

/** The segment keys of each rule card, top to bottom, as the page shows them. */
export const shownRules = (page: Page) => page.locator('section.rules .rules-list > li .rule-segments').allTextContents();
/** Each rollout card's lines ("Threshold30% of entities | Servetrue"), top to bottom. */
export const shownRollouts = (page: Page) =>
  page
    .locator('section.rollouts .rollouts-list > li')
    .evaluateAll((items) => items.map((li) => [...(li as unknown as { querySelectorAll(s: string): Iterable<{ textContent: string | null }> }).querySelectorAll('.rule-line')].map((l) => l.textContent).join(' | ')));
/** Opens the new-rule editor on the flag page with `segment` picked and a multi-variant split chosen. */
export async function newSplitRule(page: Page, segment: string) {
  const section = page.locator('section.rules');
  await section.getByRole('button', { name: 'New rule' }).click();
  const editor = section.getByRole('form', { name: 'New rule' });
  await editor.getByRole('checkbox', { name: segment }).check();
  await editor.getByRole('radio', { name: 'Multi-variant split' }).check();
  return { section, editor };
}
/** The order save is over (its status line gone) and the list reloaded. */
export const orderSaved = (page: Page) => page.locator('.sortable-status').waitFor({ state: 'detached' });
/** The button that has the keyboard: its label and the id of the list item it is in. */
export const focused = (page: Page) =>
  page.evaluate(() => {
    const el = (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null; closest(s: string): { getAttribute(n: string): string | null } | null } | null } }).document.activeElement;
    return { label: el?.getAttribute('aria-label') ?? null, item: el?.closest('[data-sortable-id]')?.getAttribute('data-sortable-id') ?? null };
  });
