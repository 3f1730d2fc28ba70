import { request } from 'undici';
import type { Config } from '../config';
import { unauthenticated, unavailable } from '../core';
import { PENNON_METADATA } from './identity-claims';
import { GITHUB_METADATA } from './sessions';
import { GITHUB_METHOD, newSignInState, type SignInState } from './sign-in-state';

/**
 * GitHub sign-in (Flipt's `authentication.methods.github`): GitHub's OAuth web flow against
 * `server_url` (authorize, token) and its REST API at `api_url` (`/user`; `/user/emails` when the
 * profile hides the address; `/user/orgs` and `/user/teams` when organizations are read). As in
 * Flipt, `allowed_organizations` admits members of one of them and, with `allowed_teams`, only
 * members of one of the listed teams of such an organization (an allowed organization without a
 * list of its own then admits nobody). Organizations are read when `read:org` is among the scopes
 * or needed (allowed organizations, or role bindings that match GitHub teams); `read:org` is then
 * asked for. Every request is bounded by REQUEST_TIMEOUT_MS and its answer by MAX_ANSWER_BYTES.
 */

type GithubConfig = Config['authentication']['methods']['github'];

const REQUEST_TIMEOUT_MS = 5000;
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface GithubOptions {
  /** Role bindings match GitHub organizations or teams: read them even without allowed_organizations. */
  readOrganizations: boolean;
}

interface GithubUser {
  login?: string;
  name?: string | null;
  email?: string | null;
  avatar_url?: string;
}

export class GithubSignIn {
  private readonly readsOrganizations: boolean;
  private readonly scopes: string[];

  constructor(
    private readonly config: GithubConfig,
    options: GithubOptions,
  ) {
    this.readsOrganizations = config.scopes.includes('read:org') || config.allowed_organizations.length > 0 || options.readOrganizations;
    this.scopes = this.readsOrganizations && !config.scopes.includes('read:org') ? [...config.scopes, 'read:org'] : config.scopes;
  }

  authorize(): { url: string; started: SignInState } {
    const started = newSignInState(GITHUB_METHOD, { pkce: false });
    const url = new URL(`${base(this.config.server_url)}/login/oauth/authorize`);
    url.searchParams.set('client_id', this.config.client_id);
    url.searchParams.set('redirect_uri', this.callbackUrl());
    if (this.scopes.length > 0) url.searchParams.set('scope', this.scopes.join(' '));
    url.searchParams.set('state', started.state);
    return { url: url.href, started };
  }

  /** Finishes a sign-in (its state already checked): the session's metadata, or a refusal. */
  async callback(query: URLSearchParams): Promise<Record<string, string>> {
    const error = query.get('error');
    if (error !== null) throw unauthenticated(`GitHub refused the sign-in: ${error}${describe(query.get('error_description'))}`);
    const code = query.get('code');
    if (!code) throw unauthenticated('missing code parameter');
    const accessToken = await this.exchange(code);
    const user = (await this.api<GithubUser>(accessToken, '/user')) ?? {};
    const email = user.email || (await this.primaryEmail(accessToken));
    const metadata: Record<string, string> = {};
    const set = (key: string, value: string | null | undefined) => {
      if (value) metadata[key] = value;
    };
    set(GITHUB_METADATA.email, email);
    set(GITHUB_METADATA.name, user.name);
    set(GITHUB_METADATA.picture, user.avatar_url);
    set(GITHUB_METADATA.preferredUsername, user.login);
    if (this.readsOrganizations) {
      const memberships = await this.memberships(accessToken);
      this.admit(user.login ?? '', memberships);
      metadata[PENNON_METADATA.github] = JSON.stringify(memberships.all);
    }
    return metadata;
  }

  callbackUrl(): string {
    return `${base(this.config.redirect_address)}/auth/v1/method/github/callback`;
  }

  private async exchange(code: string): Promise<string> {
    const body = new URLSearchParams({ client_id: this.config.client_id, client_secret: this.config.client_secret, code, redirect_uri: this.callbackUrl() });
    const answer = await call<{ access_token?: string; error?: string; error_description?: string }>(`${base(this.config.server_url)}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
    // GitHub answers a bad or used code with 200 and an error in the body.
    if (!answer || answer.error || !answer.access_token) throw unauthenticated(`GitHub refused the code: ${answer?.error ?? 'no access token'}${describe(answer?.error_description ?? null)}`);
    return answer.access_token;
  }

  private api<T>(accessToken: string, path: string): Promise<T | null> {
    return call<T>(`${base(this.config.api_url)}${path}`, {
      method: 'GET',
      headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${accessToken}`, 'x-github-api-version': '2022-11-28' },
    });
  }

  /** The primary verified address, when the profile keeps its email private (needs `user:email`; without it, none). */
  private async primaryEmail(accessToken: string): Promise<string> {
    try {
      const emails = await this.api<{ email: string; primary: boolean; verified: boolean }[]>(accessToken, '/user/emails');
      return (Array.isArray(emails) && emails.find((e) => e.primary && e.verified)?.email) || '';
    } catch (err) {
      // A token without user:email is refused here (403): the session goes on without an email.
      if (err instanceof GithubRefused) return '';
      throw err;
    }
  }

  private async memberships(accessToken: string): Promise<Memberships> {
    const [orgs, teams] = await Promise.all([
      this.api<{ login: string }[]>(accessToken, '/user/orgs?per_page=100'),
      this.api<{ slug: string; organization: { login: string } }[]>(accessToken, '/user/teams?per_page=100'),
    ]);
    const orgNames = (Array.isArray(orgs) ? orgs : []).map((o) => o.login).filter((l): l is string => typeof l === 'string');
    const teamsByOrg = new Map<string, Set<string>>();
    for (const team of Array.isArray(teams) ? teams : []) {
      const org = team.organization?.login?.toLowerCase();
      if (typeof org !== 'string' || typeof team.slug !== 'string') continue;
      if (!teamsByOrg.has(org)) teamsByOrg.set(org, new Set());
      teamsByOrg.get(org)!.add(team.slug.toLowerCase());
    }
    const all = [...orgNames, ...(Array.isArray(teams) ? teams : []).filter((t) => t.organization?.login && t.slug).map((t) => `${t.organization.login}/${t.slug}`)];
    return { orgs: new Set(orgNames.map((o) => o.toLowerCase())), teamsByOrg, all: [...new Set(all)].sort() };
  }

  /** Flipt's rule: a member of an allowed organization; with allowed_teams, of one of its listed teams. */
  private admit(login: string, memberships: Memberships): void {
    const { allowed_organizations: allowedOrgs, allowed_teams: allowedTeams } = this.config;
    if (allowedOrgs.length === 0) return;
    const who = login === '' ? 'the GitHub user' : `GitHub user ${login}`;
    const memberOf = allowedOrgs.filter((org) => memberships.orgs.has(org.toLowerCase()));
    if (memberOf.length === 0) throw unauthenticated(`${who} is not a member of an allowed organization (authentication.methods.github.allowed_organizations)`);
    if (Object.keys(allowedTeams).length === 0) return;
    for (const org of memberOf) {
      const teams = memberships.teamsByOrg.get(org.toLowerCase());
      const listed = Object.entries(allowedTeams).find(([name]) => name.toLowerCase() === org.toLowerCase())?.[1] ?? [];
      if (teams && listed.some((team) => teams.has(team.toLowerCase()))) return;
    }
    throw unauthenticated(`${who} is not a member of an allowed team (authentication.methods.github.allowed_teams)`);
  }
}

interface Memberships {
  orgs: Set<string>;
  teamsByOrg: Map<string, Set<string>>;
  /** "org" and "org/team" entries as GitHub names them. */
  all: string[];
}

/** GitHub answered, refusing (4xx). */
class GithubRefused extends Error {}

const base = (url: string) => url.replace(/\/+$/, '');
const describe = (text: string | null) => (text ? ` (${text})` : '');

/** One request to GitHub: bounded in time and size; unreachable or failing (5xx) → 503, refused (4xx) → 401. */
async function call<T>(url: string, options: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<T | null> {
  const path = new URL(url).pathname;
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      ...options,
      headers: { 'user-agent': 'Pennon', ...options.headers },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
  } catch (err) {
    throw unavailable(`GitHub is unavailable: ${path}: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  let text: string;
  try {
    text = await readBounded(res.body);
  } catch (err) {
    throw unavailable(`GitHub is unavailable: ${path}: the answer broke off`, err);
  }
  if (res.statusCode >= 500) throw unavailable(`GitHub is unavailable: ${path} answered ${res.statusCode}`);
  if (res.statusCode >= 300) {
    const refusal = new GithubRefused(`GitHub refused ${path}: ${res.statusCode}`);
    if (path === '/user/emails') throw refusal;
    throw unauthenticated(refusal.message);
  }
  try {
    return text === '' ? null : (JSON.parse(text) as T);
  } catch {
    throw unavailable(`GitHub answered ${path} with something other than JSON`);
  }
}

async function readBounded(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) throw new Error(`answer over ${MAX_ANSWER_BYTES} bytes`);
      chunks.push(chunk);
    }
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}
