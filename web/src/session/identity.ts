import type { AuthenticationJson } from '../../../internal/wire/types';

/**
 * Who is signed in, in words, from `/auth/v1/self`: each method keeps its caller's name, email
 * or login under its own metadata keys (Flipt's names; docs/SIGN-IN.md, docs/MACHINE-AUTH.md).
 * Pure (no DOM): the unit tests run it under Node.
 */
export interface Identity {
  /** The main line: a person's name, a login, a token's or service account's name. */
  name: string;
  /** A second line when it says more: the email, `@login`, the service account's namespace. */
  detail: string | null;
  /** How they signed in: "Keycloak", "GitHub", "Client token", "JWT", "Kubernetes". */
  method: string;
  /** Up to two letters for the avatar (a picture from elsewhere is not loaded: the CSP allows only this origin's). */
  initials: string;
}

const M = {
  oidcProvider: 'io.flipt.auth.oidc.provider',
  oidcName: 'io.flipt.auth.oidc.name',
  oidcEmail: 'io.flipt.auth.oidc.email',
  oidcSub: 'io.flipt.auth.oidc.sub',
  githubName: 'io.flipt.auth.github.name',
  githubLogin: 'io.flipt.auth.github.preferred_username',
  githubEmail: 'io.flipt.auth.github.email',
  tokenName: 'io.flipt.auth.token.name',
  jwtName: 'io.flipt.auth.jwt.name',
  jwtEmail: 'io.flipt.auth.jwt.email',
  jwtSub: 'io.flipt.auth.jwt.sub',
  k8sAccount: 'io.flipt.auth.k8s.serviceaccount.name',
  k8sNamespace: 'io.flipt.auth.k8s.namespace',
} as const;

/** Brands whose spelling is not the name capitalised. */
const SPELLED: Readonly<Record<string, string>> = { github: 'GitHub', gitlab: 'GitLab', auth0: 'Auth0', onelogin: 'OneLogin', jumpcloud: 'JumpCloud', adfs: 'AD FS', azure: 'Azure', azuread: 'Azure AD' };

/** An OIDC provider's configured name as people read it: `keycloak` → "Keycloak", `my_okta` → "My okta". */
export function providerLabel(name: string): string {
  const known = SPELLED[name.toLowerCase()];
  if (known) return known;
  const words = name.replace(/[-_.]+/g, ' ').trim();
  return words === '' ? name : words[0].toUpperCase() + words.slice(1);
}

function first(metadata: Readonly<Record<string, string>>, ...keys: string[]): string | null {
  for (const key of keys) {
    const value = metadata[key]?.trim();
    if (value) return value;
  }
  return null;
}

function initialsOf(name: string): string {
  const words = name.replace(/^@/, '').split(/[\s._@-]+/).filter((w) => w !== '');
  const letters = words.length >= 2 ? words[0][0] + words[1][0] : (words[0] ?? '?').slice(0, 2);
  return letters.toUpperCase();
}

function make(name: string, detail: string | null, method: string): Identity {
  return { name, detail: detail !== null && detail !== name ? detail : null, method, initials: initialsOf(name) };
}

export function identityOf(auth: Pick<AuthenticationJson, 'method' | 'metadata'>): Identity {
  const m = auth.metadata ?? {};
  switch (auth.method) {
    case 'METHOD_OIDC': {
      const provider = first(m, M.oidcProvider);
      return make(first(m, M.oidcName, M.oidcEmail, M.oidcSub) ?? 'Signed-in user', first(m, M.oidcEmail), provider ? providerLabel(provider) : 'OIDC');
    }
    case 'METHOD_GITHUB': {
      const login = first(m, M.githubLogin);
      return make(first(m, M.githubName) ?? login ?? first(m, M.githubEmail) ?? 'GitHub user', login ? `@${login}` : first(m, M.githubEmail), 'GitHub');
    }
    case 'METHOD_TOKEN':
      return make(first(m, M.tokenName) ?? 'Client token', null, 'Client token');
    case 'METHOD_JWT':
      return make(first(m, M.jwtName, M.jwtEmail, M.jwtSub) ?? 'JWT', first(m, M.jwtEmail), 'JWT');
    case 'METHOD_KUBERNETES': {
      const ns = first(m, M.k8sNamespace);
      return make(first(m, M.k8sAccount) ?? 'Service account', ns ? `namespace ${ns}` : null, 'Kubernetes');
    }
    default:
      return make('Signed-in caller', null, String(auth.method).replace(/^METHOD_/, '').toLowerCase());
  }
}

/** A sign-in button on the login screen: "Sign in with Keycloak" → the provider's authorize URL. */
export interface SignInOption {
  label: string;
  url: string;
}

type MethodEntry = { method: string; enabled: boolean; metadata?: unknown };

const record = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/**
 * The browser sign-ins `GET /auth/v1/method` offers, in Flipt's shape: OIDC's
 * `metadata.providers.<name>.authorize_url` (one button per provider, by name), GitHub's
 * `metadata.authorize_url`. A disabled method, or one without a URL, offers nothing.
 */
export function signInOptions(methods: readonly MethodEntry[]): SignInOption[] {
  const options: SignInOption[] = [];
  for (const entry of methods) {
    if (!entry.enabled) continue;
    const metadata = record(entry.metadata);
    if (entry.method === 'METHOD_OIDC') {
      const providers = record(metadata?.providers) ?? {};
      for (const name of Object.keys(providers).sort()) {
        const url = record(providers[name])?.authorize_url;
        if (typeof url === 'string' && url !== '') options.push({ label: `Sign in with ${providerLabel(name)}`, url });
      }
    } else if (entry.method === 'METHOD_GITHUB') {
      const url = metadata?.authorize_url;
      if (typeof url === 'string' && url !== '') options.push({ label: 'Sign in with GitHub', url });
    }
  }
  return options;
}
