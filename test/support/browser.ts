import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { describe } from 'vitest';

/**
 * Debian's Chromium (`apt-get install -y chromium`), driven headless by playwright-core. We never
 * download a browser: playwright-core has no browser of its own and is only pointed at this one.
 * Without it the dashboard's browser tests are skipped with a notice — except in CI or with
 * PENNON_TEST_REQUIRE_BROWSER=1 (which .ci/run sets), where a missing browser fails the run.
 */
// PENNON_TEST_*, not PENNON_*: the CLI warns about unknown PENNON_* variables, and the
// end-to-end tests pass the environment on to it.
export const CHROMIUM = process.env.PENNON_TEST_CHROMIUM ?? '/usr/bin/chromium';
const required = (process.env.CI ?? '') !== '' || process.env.PENNON_TEST_REQUIRE_BROWSER === '1';
export const hasBrowser = existsSync(CHROMIUM);

if (!hasBrowser) {
  if (required) throw new Error(`${CHROMIUM} not found, and CI / PENNON_TEST_REQUIRE_BROWSER=1 require the browser tests: apt-get install -y chromium`);
  console.warn(`\u26a0 ${CHROMIUM} not found: dashboard browser tests skipped (apt-get install -y chromium)`);
}

/** `describe` for browser tests: skipped (with the notice above) when there is no Chromium. */
export const describeBrowser = describe.skipIf(!hasBrowser);

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // --no-sandbox: tests run as root in a container; the others keep Chromium off the network.
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-dev-shm-usage'],
  });
}

export interface DashboardPage {
  page: Page;
  context: BrowserContext;
  /** Console errors, page errors and CSP violations seen so far: a clean page has none. */
  problems: string[];
  close(): Promise<void>;
}

/**
 * A fresh browser context (its own sessionStorage and localStorage) on the dashboard at
 * `baseUrl` + `#hash`, waiting until the first screen has rendered (no "Loading" left).
 */
export async function openDashboard(
  browser: Browser,
  baseUrl: string,
  hash = '/',
  options: { width?: number; height?: number; colorScheme?: 'light' | 'dark'; timezoneId?: string } = {},
): Promise<DashboardPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    colorScheme: options.colorScheme ?? 'light',
    // The browser's own time zone (an IANA name), for screens that show local times.
    timezoneId: options.timezoneId,
  });
  // A missing element fails the step in 10 s, well inside the test's own timeout.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => {
    // The browser logs every 4xx answer; the API's refusals are expected in tests that provoke them.
    if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(`${baseUrl}/#${hash}`);
  await settled(page);
  return { page, context, problems, close: () => context.close() };
}

/** Waits until no loading indicator is shown (data arrived or an error is displayed). */
export async function settled(page: Page): Promise<void> {
  // A function, not a string: the dashboard's CSP forbids eval. The test code is type-checked
  // without the DOM's types, hence the cast.
  await page.waitForFunction(() => !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('[aria-busy="true"], .boot'), undefined, {
    timeout: 10_000,
  });
}

const SCREENSHOTS = resolve(__dirname, '../../test-output/screenshots');

/** Saves a full-page PNG under test-output/screenshots/<name>.png (gitignored); returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
