import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { answerHeadLikeGet } from '../../../internal/server/head';
import { recordRoutes, serve } from '../../../internal/server/route-table';
import { ROUTES, type Presence } from '../../../internal/wire';
import { testLicence } from '../../support/git-fixtures';
import { startGitRemote, type GitRemote } from '../../support/git-remote';
import { startServer, type TestServer } from '../../support/server';
import { TEST_WEBHOOK_SECRET } from '../../support/webhook-deliveries';

/**
 * The wire table (internal/wire/routes.ts) is every route Pennon serves: a running app
 * registers exactly the table's routes whose setting is on — no more (a route outside the table
 * cannot be registered at all), no fewer — each carrying its table entry.
 */

/** The routes an app registered, as `METHOD path` (HEAD twins left out; the dashboard's files as their one entry). */
function registered(server: TestServer): string[] {
  const table = server.service.app.routeTable;
  for (const entry of table) {
    // Each route carries the entry it was registered under, at its own path (bar the dashboard's files).
    if (!entry.spec.staticFiles) expect(`${entry.method === 'HEAD' ? 'GET' : entry.method} ${entry.url}`).toBe(`${entry.spec.method} ${entry.spec.path}`);
  }
  const gets = new Set(table.filter((e) => e.method === 'GET').map((e) => e.url));
  expect(table.filter((e) => e.method === 'HEAD' && !gets.has(e.url))).toEqual([]);
  return [...new Set(table.filter((e) => e.method !== 'HEAD').map((e) => `${e.method} ${e.spec.staticFiles ? e.spec.path : e.url}`))].sort();
}

function expected(on: Presence[]): string[] {
  return ROUTES.filter((r) => on.includes(r.when)).map((r) => `${r.method} ${r.path}`).sort();
}

describe('the route table', () => {
  const servers: TestServer[] = [];
  let remote: GitRemote | undefined;
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await remote?.close();
  });

  it('a server with every optional setting on registers every route but the Git ones (its flags are in the database)', async () => {
    const server = await startServer({
      PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      PENNON_METRICS_ENABLED: 'true',
      PENNON_UI_ENABLED: 'true',
      PENNON_CORS_ENABLED: 'true',
    });
    servers.push(server);
    expect(registered(server)).toEqual(expected(['always', 'database', 'token-method', 'metrics', 'ui', 'cors']));
    // The dashboard's files are registered one by one under their entry.
    expect(server.service.app.routeTable.filter((e) => e.spec.name === 'DashboardFile').map((e) => e.url)).toEqual(expect.arrayContaining(['/', '/index.html']));
  });

  it('a server with every optional setting off registers only the routes that are always there', async () => {
    const server = await startServer({
      PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'false',
      PENNON_METRICS_ENABLED: 'false',
      PENNON_UI_ENABLED: 'false',
      PENNON_CORS_ENABLED: 'false',
    });
    servers.push(server);
    expect(registered(server)).toEqual(expected(['always', 'database']));
  });

  it('a server with the sign-in methods on adds their authorize and callback routes', async () => {
    const server = await startServer({
      PENNON_METRICS_ENABLED: 'false',
      PENNON_UI_ENABLED: 'false',
      PENNON_AUTHENTICATION_SESSION_DOMAIN: 'pennon.test',
      PENNON_AUTHENTICATION_METHODS_OIDC_ENABLED: 'true',
      // Never contacted: discovery waits for the first sign-in.
      PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_IDP_ISSUER_URL: 'https://idp.invalid',
      PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_IDP_CLIENT_ID: 'pennon',
      PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_IDP_CLIENT_SECRET: 'secret',
      PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_IDP_REDIRECT_ADDRESS: 'https://pennon.test',
      PENNON_AUTHENTICATION_METHODS_GITHUB_ENABLED: 'true',
      PENNON_AUTHENTICATION_METHODS_GITHUB_CLIENT_ID: 'pennon',
      PENNON_AUTHENTICATION_METHODS_GITHUB_CLIENT_SECRET: 'secret',
      PENNON_AUTHENTICATION_METHODS_GITHUB_REDIRECT_ADDRESS: 'https://pennon.test',
    });
    servers.push(server);
    expect(registered(server)).toEqual(expected(['always', 'database', 'oidc', 'github']));
  });

  it('a Git-backed server with the webhook licensed adds the environments and the webhook', async () => {
    remote = await startGitRemote();
    remote.commit({ 'prod/fuzz/features.yaml': 'version: "1.4"\nnamespace: fuzz\nflags: []\n' });
    const server = await startServer({
      PENNON_METRICS_ENABLED: 'false',
      PENNON_UI_ENABLED: 'false',
      PENNON_LICENSE_KEY: testLicence(),
      PENNON_STORAGE_FLAGS_REMOTE: remote.url,
      PENNON_STORAGE_FLAGS_POLL_INTERVAL: '1h',
      PENNON_ENVIRONMENTS_PROD_STORAGE: 'flags',
      PENNON_ENVIRONMENTS_PROD_DIRECTORY: 'prod',
      PENNON_ENVIRONMENTS_PROD_SCM_TYPE: 'github',
      PENNON_ENVIRONMENTS_PROD_SCM_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    });
    servers.push(server);
    expect(registered(server)).toEqual(expected(['always', 'git', 'webhook']));
  });

  it('a route that is not in the table cannot be registered', async () => {
    // As app.ts builds it: HEAD comes from head.ts, not Fastify.
    const app = Fastify({ exposeHeadRoutes: false });
    answerHeadLikeGet(app);
    recordRoutes(app);
    expect(() => app.get('/api/v1/not-in-the-table', async () => ({}))).toThrow(/GET,HEAD \/api\/v1\/not-in-the-table is not in the route table/);
    // A known path with a method the table does not give it.
    expect(() => app.post('/health', async () => ({}))).toThrow(/POST \/health is not in the route table/);
    // The table's own routes register, every path of an operation at once.
    serve(app, 'GetFlag', async () => ({}));
    await app.ready();
    expect(app.routeTable.map((e) => `${e.method} ${e.url}`)).toEqual([
      'GET /api/v1/namespaces/:namespaceKey/flags/:key',
      'HEAD /api/v1/namespaces/:namespaceKey/flags/:key',
      'GET /api/v1/flags/:key',
      'HEAD /api/v1/flags/:key',
    ]);
    await app.close();
  });
});
