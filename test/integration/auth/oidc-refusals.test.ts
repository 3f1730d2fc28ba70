import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/cli';
import { ManualClock } from '../../support/clock';
import { CLIENT, startOidcProvider, type TestProvider } from '../../support/oidc-provider';
import { startServer, type TestServer } from '../../support/server';
import { openEvents } from '../../support/namespace-events';
import { HttpBrowser, signInAtProvider } from '../../support/sign-in-flow';
import { until } from '../../support/wait';

/**
 * What OIDC sign-in refuses or lets lapse: an email outside `email_matches`, a session past
 * `session.token_lifetime` (and its cleanup), a provider that cannot be reached (503 at once,
 * and discovery tried again once it is back).
 */

const JSON_ACCEPT = { accept: 'application/json' };

function oidcEnv(port: number, issuer: string, extra: Record<string, string> = {}): Record<string, string> {
  const key = 'PENNON_AUTHENTICATION_METHODS_OIDC_PROVIDERS_TEST';
  return {
    PENNON_SERVER_HTTP_PORT: String(port),
    PENNON_AUTHENTICATION_REQUIRED: 'true',
    PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
    PENNON_AUTHENTICATION_METHODS_OIDC_ENABLED: 'true',
    PENNON_AUTHENTICATION_SESSION_DOMAIN: '127.0.0.1',
    [`${key}_ISSUER_URL`]: issuer,
    [`${key}_CLIENT_ID`]: CLIENT.id,
    [`${key}_CLIENT_SECRET`]: CLIENT.secret,
    [`${key}_REDIRECT_ADDRESS`]: `http://127.0.0.1:${port}`,
    ...extra,
  };
}

describe('OIDC sign-in refusals and lapses', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function setUp(extra: Record<string, string> = {}, clock?: ManualClock): Promise<{ server: TestServer; base: string; idp: TestProvider }> {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const idp = await startOidcProvider([`${base}/auth/v1/method/oidc/test/callback`]);
    cleanups.push(() => idp.close());
    const server = await startServer(oidcEnv(port, idp.issuer, extra), { clock });
    cleanups.push(() => server.stop());
    return { server, base, idp };
  }

  async function signIn(base: string, user: string): Promise<{ browser: HttpBrowser; status: number; body: any }> {
    const browser = new HttpBrowser();
    const start = await browser.go(`${base}/auth/v1/method/oidc/test/authorize`);
    const res = await browser.go(await signInAtProvider(browser, start.location!, user), { headers: JSON_ACCEPT });
    return { browser, status: res.status, body: res.json() };
  }

  it('refused sign-ins count against the address: past authentication.rate_limit.max_failures, 429 with Retry-After before any work', async () => {
    const { base } = await setUp({ PENNON_AUTHENTICATION_RATE_LIMIT_MAX_FAILURES: '3' });
    const browser = new HttpBrowser();
    // A callback whose state matches no cookie: refused (401) and counted, three times.
    for (let i = 0; i < 3; i++) {
      const refused = await browser.go(`${base}/auth/v1/method/oidc/test/callback?code=x&state=forged-${i}`, { headers: JSON_ACCEPT });
      expect(refused.status).toBe(401);
    }
    const limited = await browser.go(`${base}/auth/v1/method/oidc/test/callback?code=x&state=forged-3`, { headers: JSON_ACCEPT });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The address's token lookups are limited too: the same limiter.
    expect((await browser.go(`${base}/auth/v1/self`, { headers: { ...JSON_ACCEPT, authorization: 'Bearer anything' } })).status).toBe(429);
  });

  it('email_matches: an address that matches none of the patterns gets no session (401 saying so); one that matches does', async () => {
    const { base } = await setUp({ PENNON_AUTHENTICATION_METHODS_OIDC_EMAIL_MATCHES: '^[a-z]+@example\\.com$ ^ops@' });
    const refused = await signIn(base, 'mallory');
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ code: 16, message: 'email mallory@elsewhere.test is not allowed to sign in (authentication.methods.oidc.email_matches)', details: [] });
    const allowed = await signIn(base, 'alice');
    expect(allowed.status).toBe(200);
    expect(allowed.body.authentication.metadata['io.flipt.auth.oidc.email']).toBe('alice@example.com');
  });

  it('a session lapses after session.token_lifetime (401, cookie cleared), and the OIDC cleanup deletes it past its grace period', async () => {
    const clock = new ManualClock();
    const { server, base } = await setUp({ PENNON_AUTHENTICATION_SESSION_TOKEN_LIFETIME: '1h', PENNON_AUTHENTICATION_METHODS_OIDC_CLEANUP_GRACE_PERIOD: '30m' }, clock);
    expect(server.service.services.startup.map((s) => s.name)).toContain('oidc session cleanup');
    const { browser, body } = await signIn(base, 'alice');
    // The JSON callback set the cookie too: the browser holds the session.
    expect(Date.parse(body.authentication.expiresAt) - clock.nowMs()).toBeGreaterThan(3599_000);
    expect((await browser.go(`${base}/auth/v1/self`, { headers: JSON_ACCEPT })).status).toBe(200);

    clock.advance(3600_000 + 1000);
    const lapsed = await browser.go(`${base}/auth/v1/self`, { headers: JSON_ACCEPT });
    expect(lapsed.status).toBe(401);
    expect(browser.cookie(base, 'flipt_client_token')).toBeUndefined();

    const { auth } = server.service.services;
    expect(await auth.cleanup(30 * 60_000, 'METHOD_OIDC')).toBe(0); // inside the grace period
    clock.advance(31 * 60_000);
    expect(await auth.cleanup(30 * 60_000, 'METHOD_OIDC')).toBe(1);
    expect((await auth.list('METHOD_OIDC', 100, '')).items).toEqual([]);
    // The bootstrap token is no OIDC session: untouched.
    expect((await auth.list('METHOD_TOKEN', 100, '')).items).toHaveLength(1);
  });

  it('a live stream a session cookie opened is checked again at each heartbeat with the same cookie, and ends once the session does', async () => {
    const { base } = await setUp({ PENNON_STREAMS_HEARTBEAT_INTERVAL: '100ms' });
    const { browser } = await signIn(base, 'alice');
    const cookie = `flipt_client_token=${browser.cookie(base, 'flipt_client_token')}`;
    const events = await openEvents(base, 'default', { headers: { cookie } });
    try {
      await until(() => events.raw.split(': ping').length > 3, 'three heartbeats on the open stream', 5000);
      let ended = false;
      void events.ended.then(() => (ended = true));
      expect(ended).toBe(false);
      const csrf = (await browser.go(`${base}/auth/v1/self`, { headers: JSON_ACCEPT })).headers['x-csrf-token'] as string;
      expect((await browser.go(`${base}/auth/v1/self/expire`, { method: 'PUT', headers: { ...JSON_ACCEPT, 'x-csrf-token': csrf } })).status).toBe(200);
      await until(() => ended, 'the stream to end after logout', 5000);
    } finally {
      events.close();
    }
  });

  it('a provider that cannot be reached is a 503 at once; discovery is tried again and succeeds once it is up', async () => {
    const port = await freePort();
    const idpPort = await freePort(); // nothing listens there yet
    const base = `http://127.0.0.1:${port}`;
    const server = await startServer(oidcEnv(port, `http://127.0.0.1:${idpPort}`));
    cleanups.push(() => server.stop());
    const browser = new HttpBrowser();
    const started = performance.now();
    const down = await browser.go(`${base}/auth/v1/method/oidc/test/authorize`, { headers: JSON_ACCEPT });
    expect(performance.now() - started).toBeLessThan(5500);
    expect(down.status).toBe(503);
    expect(down.json()).toEqual({ code: 14, message: expect.stringMatching(/^OIDC provider "test" is unavailable/), details: [] });
    expect(browser.cookie(base, 'flipt_client_state')).toBeUndefined();

    const idp = await startOidcProvider([`${base}/auth/v1/method/oidc/test/callback`], idpPort);
    cleanups.push(() => idp.close());
    const up = await browser.go(`${base}/auth/v1/method/oidc/test/authorize`, { headers: JSON_ACCEPT });
    expect(up.status, up.text).toBe(200);
    expect(up.json().authorizeUrl).toMatch(new RegExp(`^${idp.issuer}/auth\\?`));
  });
});
