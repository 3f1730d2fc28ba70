import { z } from 'zod';
import { duration, secret } from './kinds';

/**
 * Flipt v1's sign-in methods besides tokens, its browser session, and Pennon's own roles
 * (`authorization.roles`) and rate limit on failed authentication. Keys are Flipt's
 * (`internal/config/authentication.go`) where Flipt has the setting.
 */

const cleanup = z
  .strictObject({
    interval: duration('1h'),
    grace_period: duration('30m'),
  })
  .prefault({});

const oidcProvider = z.strictObject({
  issuer_url: z.string().default(''),
  /** Where the provider's discovery document is, when not under issuer_url (Flipt v2). */
  discovery_url: z.string().default(''),
  client_id: secret(z.string().default('')),
  client_secret: secret(z.string().default('')),
  /** Pennon's public address as the browser reaches it: the callback is `<redirect_address>/auth/v1/method/oidc/<provider>/callback`. */
  redirect_address: z.string().default(''),
  scopes: z.array(z.string()).default([]),
  use_pkce: z.boolean().default(false),
  /** Deprecated in Flipt (a nonce is generated per sign-in); accepted and ignored. */
  nonce: z.string().default(''),
  /** ID token signing algorithms accepted (Flipt's default: RS256). */
  algorithms: z.array(z.string()).default(['RS256']),
  /** Extra parameters sent on the authorization request (Flipt v2). */
  authorize_parameters: z.record(z.string(), z.string()).default({}),
});

const oidc = z.strictObject({
  enabled: z.boolean().default(false),
  /** Regular expressions; when set, a session is created only for an email one of them matches. */
  email_matches: z.array(z.string()).default([]),
  providers: z.record(z.string(), oidcProvider).default({}),
  cleanup,
});

const github = z.strictObject({
  enabled: z.boolean().default(false),
  client_id: secret(z.string().default('')),
  client_secret: secret(z.string().default('')),
  redirect_address: z.string().default(''),
  scopes: z.array(z.string()).default([]),
  /** GitHub Enterprise: the web address (authorize, token) and the API's. */
  server_url: z.string().default('https://github.com'),
  api_url: z.string().default('https://api.github.com'),
  /** When set, only members of one of these organizations get a session. */
  allowed_organizations: z.array(z.string()).default([]),
  /** Per organization, the teams (slugs) whose members get a session. */
  allowed_teams: z.record(z.string(), z.array(z.string())).default({}),
  cleanup,
});

const kubernetes = z.strictObject({
  enabled: z.boolean().default(false),
  discovery_url: z.string().default('https://kubernetes.default.svc.cluster.local'),
  ca_path: z.string().default('/var/run/secrets/kubernetes.io/serviceaccount/ca.crt'),
  service_account_token_path: z.string().default('/var/run/secrets/kubernetes.io/serviceaccount/token'),
  cleanup,
});

const jwt = z.strictObject({
  enabled: z.boolean().default(false),
  jwks_url: z.string().default(''),
  public_key_file: z.string().default(''),
  validate_claims: z
    .strictObject({
      issuer: z.string().default(''),
      subject: z.string().default(''),
      audiences: z.array(z.string()).default([]),
    })
    .prefault({}),
});

export const signInMethodsShape = { oidc: oidc.prefault({}), github: github.prefault({}), kubernetes: kubernetes.prefault({}), jwt: jwt.prefault({}) };

/** A cookie domain from what an operator writes: `http://flipt.example.com:8080` → `flipt.example.com`, as Flipt strips it. */
function hostOnly(domain: string): string {
  const withoutScheme = domain.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const host = withoutScheme.split('/')[0];
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
}

/** The browser session OIDC and GitHub sign-in create: a cookie holding a client token. */
export const sessionSchema = z
  .strictObject({
    /** Pennon's public host; required with a session method (scheme and port are stripped). */
    domain: z.string().default('').transform(hostOnly),
    secure: z.boolean().default(false),
    token_lifetime: duration('24h'),
    state_lifetime: duration('10m'),
    csrf: z
      .strictObject({
        key: secret(z.string().default('')),
        /** Flipt v2: origins besides the session's own allowed to send state-changing requests. */
        trusted_origins: z.array(z.string()).default([]),
      })
      .prefault({}),
  })
  .prefault({});

/** Pennon's own: failed authentication per client address. */
export const authRateLimitSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** Failed attempts (a token that is unknown, expired or malformed; a refused sign-in) per address per window. */
    max_failures: z.number().int().min(1).default(20),
    window: duration('1m'),
  })
  .prefault({});

export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * One binding of `authorization.roles`: identities that match any of `match` get `role`, on every
 * namespace or on those listed.
 */
const roleBinding = z.strictObject({
  role: z.enum(ROLES),
  /** The namespaces the role holds in; absent or empty: every namespace. */
  namespaces: z.array(z.string()).default([]),
  match: z
    .strictObject({
      emails: z.array(z.string()).default([]),
      /** OIDC `groups` claim values (or the claim `groups_claim` names). */
      groups: z.array(z.string()).default([]),
      /** `sub` of an OIDC or JWT identity, the service account of a Kubernetes one. */
      subjects: z.array(z.string()).default([]),
      /** GitHub `org/team` (team slug) or `org` for every member. */
      github: z.array(z.string()).default([]),
      /** Claim name → accepted values, for OIDC and JWT identities. */
      claims: z.record(z.string(), z.array(z.string())).default({}),
    })
    .prefault({}),
});

/**
 * `authorization`: Flipt's keys (`required`, `backend`, `local`: Rego policies, which Pennon does
 * not run) and Pennon's built-in roles.
 */
export const authorizationSchema = z
  .strictObject({
    required: z.boolean().default(false),
    /** The claim holding an OIDC identity's groups. */
    groups_claim: z.string().default('groups'),
    /** The role of a signed-in identity that no binding matches; none by default. */
    default_role: z.enum([...ROLES, 'none']).default('none'),
    roles: z.array(roleBinding).default([]),
  })
  .prefault({});

export type SessionConfig = z.output<typeof sessionSchema>;
export type AuthorizationConfig = z.output<typeof authorizationSchema>;
export type RoleBinding = z.output<typeof roleBinding>;
export type AuthRateLimitConfig = z.output<typeof authRateLimitSchema>;
