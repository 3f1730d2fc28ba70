import type { Browser, Locator, Page } from 'playwright-core';
import { launchBrowser } from './browser';
import { expectStatus, startServer, type ApiClient, type TestServer } from './server';

/**
 * What the dashboard's browser tests share besides the browser itself (browser.ts): starting
 * Chromium with the servers, logging in, seeding data through the API, and reading the page.
 *
 *   let server: TestServer;
 *   let browser: Browser;
 *   beforeAll(async () => ({ server, browser } = await startDashboard()));
 *   afterAll(() => stopDashboard(browser, server));
 */

/** A server's configuration variables requiring a client token, `bootstrap` being the bootstrap token. */
export function tokenAuth(bootstrap: string): Record<string, string> {
  return {
    PENNON_AUTHENTICATION_REQUIRED: 'true',
    PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
    PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: bootstrap,
  };
}

/**
 * Chromium and one server per entry of `servers` (its configuration variables), started
 * together; `{ server, browser }` by default. If one fails to start, those that did are stopped.
 */
export async function startDashboard<K extends string = 'server'>(
  servers: Record<K, Record<string, string>> = { server: {} } as Record<K, Record<string, string>>,
): Promise<{ browser: Browser } & Record<K, TestServer>> {
  const names = Object.keys(servers) as K[];
  const [browser, ...started] = await Promise.allSettled([launchBrowser(), ...names.map((name) => startServer(servers[name]))]);
  const failed = [browser, ...started].find((r) => r.status === 'rejected');
  if (failed) {
    await stopDashboard(
      browser.status === 'fulfilled' ? browser.value : undefined,
      ...started.map((r) => (r.status === 'fulfilled' ? r.value : undefined)),
    );
    throw failed.reason;
  }
  const result = { browser: (browser as PromiseFulfilledResult<Browser>).value } as { browser: Browser } & Record<K, TestServer>;
  names.forEach((name, i) => {
    (result as Record<K, TestServer>)[name] = (started[i] as PromiseFulfilledResult<TestServer>).value;
  });
  return result;
}

/** Closes the browser, then stops the servers (any of them may be missing: a failed start). */
export async function stopDashboard(browser: Browser | undefined, ...servers: (TestServer | undefined)[]): Promise<void> {
  await browser?.close();
  await Promise.all(servers.map((s) => s?.stop()));
}

/** The login screen's steps: wait for it, enter the client token, log in. */
export async function logIn(page: Page, token: string): Promise<void> {
  await page.waitForURL(/#\/login$/);
  await page.getByLabel('Client token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** A segment in namespace `ns` and its constraints, made through the API (the bodies as given). */
export async function createSegment(api: ApiClient, ns: string, segment: { key: string; name: string; [field: string]: unknown }, constraints: Record<string, unknown>[] = []): Promise<void> {
  expectStatus(await api.post(`/api/v1/namespaces/${ns}/segments`, segment), 200);
  for (const c of constraints) expectStatus(await api.post(`/api/v1/namespaces/${ns}/segments/${segment.key}/constraints`, c), 200);
}

/** A namespace made through the API. */
export async function createNamespace(api: ApiClient, key: string, name: string): Promise<void> {
  expectStatus(await api.post('/api/v1/namespaces', { key, name }), 200);
}

/** The `data-key` of each row in the page's table bodies, in order. */
export const rowKeys = (page: Page) => page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { key: string } }).dataset.key));

/** The values of a select's options, in order. */
export const optionValues = (select: Locator) => select.locator('option').evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));

/** How far the page itself scrolls sideways (≤ 0: nothing wider than the window). */
export const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
