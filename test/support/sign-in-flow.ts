import { request } from 'undici';

/**
 * A browser's part in a sign-in, over plain HTTP (undici, no redirects followed on its own):
 * cookies kept per origin as a browser keeps them (expired or emptied ones dropped), every
 * response's Set-Cookie lines kept for the test to read, and the OpenID Provider's development
 * login and consent forms filled in. `signInAtProvider` walks from Pennon's authorize answer to
 * the callback URL the provider sends the browser back to — not followed, so a test can tamper
 * with it or with the cookies first.
 */

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  location: string | null;
  text: string;
  setCookies: string[];
  json(): any;
}

const WAIT_MS = 5000;

export class HttpBrowser {
  readonly jars = new Map<string, Map<string, string>>();

  jar(url: string): Map<string, string> {
    const origin = new URL(url).origin;
    let jar = this.jars.get(origin);
    if (!jar) this.jars.set(origin, (jar = new Map()));
    return jar;
  }

  cookie(url: string, name: string): string | undefined {
    return this.jar(url).get(name);
  }

  async go(url: string, options: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<HttpAnswer> {
    const jar = this.jar(url);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await request(url, {
      method: (options.method ?? 'GET') as 'GET',
      body: options.body,
      headers: { accept: 'text/html,application/xhtml+xml', ...(cookie && { cookie }), ...options.headers },
      signal: AbortSignal.timeout(WAIT_MS),
    });
    const text = await res.body.text();
    const raw = res.headers['set-cookie'];
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    for (const line of setCookies) keep(jar, line);
    const location = res.headers.location;
    return {
      status: res.statusCode,
      headers: res.headers,
      location: typeof location === 'string' ? new URL(location, url).href : null,
      text,
      setCookies,
      json: () => JSON.parse(text),
    };
  }
}

function keep(jar: Map<string, string>, line: string): void {
  const [pair, ...attributes] = line.split(';').map((s) => s.trim());
  const at = pair.indexOf('=');
  const name = pair.slice(0, at);
  const value = pair.slice(at + 1);
  const gone = attributes.some((a) => /^max-age=(0|-\d+)$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) <= Date.now()));
  if (gone || value === '') jar.delete(name);
  else jar.set(name, value);
}

/** The attributes of the Set-Cookie line for `name` in an answer (lower-cased keys), or null. */
export function cookieAttributes(answer: HttpAnswer, name: string): Record<string, string> | null {
  const line = answer.setCookies.find((l) => l.startsWith(`${name}=`));
  if (!line) return null;
  const [pair, ...attributes] = line.split(';').map((s) => s.trim());
  const out: Record<string, string> = { value: pair.slice(name.length + 1) };
  for (const a of attributes) {
    const at = a.indexOf('=');
    out[(at < 0 ? a : a.slice(0, at)).toLowerCase()] = at < 0 ? '' : a.slice(at + 1);
  }
  return out;
}

/**
 * From the provider's authorization URL to the callback URL it redirects back to, signing in
 * as `user` on the development login form and granting consent. Bounded: at most 12 steps.
 */
export async function signInAtProvider(browser: HttpBrowser, authorizeUrl: string, user: string): Promise<string> {
  const providerOrigin = new URL(authorizeUrl).origin;
  let next = authorizeUrl;
  for (let step = 0; step < 12; step++) {
    if (new URL(next).origin !== providerOrigin) return next;
    const page = await browser.go(next);
    if (page.location) {
      next = page.location;
      continue;
    }
    if (page.status !== 200) throw new Error(`the provider answered ${page.status} at ${next}: ${page.text.slice(0, 300)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(page.text)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(page.text)?.[1];
    if (!prompt || !action) throw new Error(`no interaction form at ${next}: ${page.text.slice(0, 300)}`);
    const form = new URLSearchParams({ prompt, ...(prompt === 'login' && { login: user, password: 'any password' }) });
    const submitted = await browser.go(new URL(action.replace(/&amp;/g, '&'), next).href, {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    if (!submitted.location) throw new Error(`the provider did not move on after ${prompt}: ${submitted.status} ${submitted.text.slice(0, 300)}`);
    next = submitted.location;
  }
  throw new Error('the provider did not send the browser back within 12 steps');
}
