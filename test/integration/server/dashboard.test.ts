import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dashboardFiles } from '../../../internal/server/dashboard/assets';
import { startServer, useServer } from '../../support/server';

/**
 * The dashboard as the server delivers it (dist/web, built by the global setup): at `/`, with
 * its security headers, pre-compressed, public even when the API wants a token — and without
 * changing what the API answers for anything else.
 */

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('the dashboard at /', () => {
  const server = useServer({ PENNON_AUTHENTICATION_REQUIRED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'dash-secret' });

  it('serves index.html with nosniff, a self-only CSP and no caching, without a token', async () => {
    const res = await get(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.text).toMatch(/<script type="module" src="assets\/main-[A-Z0-9]+\.js"><\/script>/);
    // No inline script at all: the CSP would refuse it.
    expect(res.text.match(/<script[^>]*>/g)?.every((tag) => tag.includes(' src='))).toBe(true);
    expect((await get(`${server.url}/index.html`)).status).toBe(200);
  });

  it('serves the hashed assets pre-compressed and cacheable for a year', async () => {
    const index = (await get(`${server.url}/`)).text;
    const script = /src="(assets\/[^"]+\.js)"/.exec(index)![1];
    const style = /href="(assets\/[^"]+\.css)"/.exec(index)![1];
    const js = await fetch(`${server.url}/${script}`, { headers: { 'accept-encoding': 'br' } });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-encoding')).toBe('br');
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await js.text()).length).toBeGreaterThan(1000); // fetch decodes br
    const css = await get(`${server.url}/${style}`, { 'accept-encoding': 'identity' });
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.text).toContain('--accent');
  });

  it('leaves the API as it was: Flipt’s JSON 404 for unknown paths, 401 without a token, the fast lane answering', async () => {
    for (const path of ['/api/v1/nope', '/assets/missing.js', '/nope.html', '/index.html.br']) {
      const res = await get(`${server.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.text), path).toEqual({ code: 5, message: 'Not Found', details: [] });
    }
    expect((await get(`${server.url}/api/v1/namespaces`)).status).toBe(401);
    const token = { authorization: 'Bearer dash-secret' };
    expect((await get(`${server.url}/api/v1/namespaces`, token)).status).toBe(200);
    const evaluation = await fetch(`${server.url}/evaluate/v1/variant`, { method: 'POST', headers: token, body: JSON.stringify({ flagKey: 'nope', entityId: 'e' }) });
    expect(evaluation.status).toBe(404);
    expect(await evaluation.json()).toMatchObject({ code: 5, message: 'flag "default/nope" not found' });
  });
});

describe('ui.enabled: false', () => {
  it('serves no dashboard: / is Flipt’s JSON 404', async () => {
    const server = await startServer({ PENNON_UI_ENABLED: 'false' });
    try {
      const res = await get(`${server.url}/`);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.text)).toEqual({ code: 5, message: 'Not Found', details: [] });
    } finally {
      await server.stop();
    }
  });
});

describe('embedded dashboard files (as inside the executable)', () => {
  it('are written once to a per-version cache directory and reused', () => {
    const cache = mkdtempSync(join(tmpdir(), 'pennon-web-cache-'));
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cache;
    try {
      const embedded = { digest: 'abc123', files: { 'index.html': Buffer.from('<p>hi</p>').toString('base64'), 'assets/main-X.js': Buffer.from('1').toString('base64') } };
      const first = dashboardFiles(embedded);
      expect(first).toEqual({ dir: join(cache, 'pennon', 'web', 'abc123') });
      expect(readdirSync(join(cache, 'pennon', 'web', 'abc123')).sort()).toEqual(['.complete', 'assets', 'index.html']);
      expect(dashboardFiles(embedded)).toEqual(first);
      // No temporary directories left behind.
      expect(readdirSync(join(cache, 'pennon', 'web'))).toEqual(['abc123']);
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
