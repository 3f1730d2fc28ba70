import type { AuditOrigin, AuthMethod, Authentication, Clock } from '../core';
import type { AuthStore, Store } from '../storage';
import { generateToken, hashToken } from './tokens';

/**
 * Browser sessions: what OIDC and GitHub sign-in create. A session is an ordinary row of the
 * authentications table (so the bearer lookup, expiry, listing, deletion and the cleanup all
 * treat it as they treat a token); its client token travels in the `flipt_client_token` cookie.
 * The metadata keys are Flipt's where Flipt has them; `io.pennon.auth.*` are Pennon's own, read
 * by the role resolver (internal/auth/roles.ts).
 */

export const OIDC_METADATA = {
  provider: 'io.flipt.auth.oidc.provider',
  email: 'io.flipt.auth.oidc.email',
  emailVerified: 'io.flipt.auth.oidc.email_verified',
  name: 'io.flipt.auth.oidc.name',
  picture: 'io.flipt.auth.oidc.picture',
  sub: 'io.flipt.auth.oidc.sub',
} as const;

export const GITHUB_METADATA = {
  email: 'io.flipt.auth.github.email',
  name: 'io.flipt.auth.github.name',
  picture: 'io.flipt.auth.github.picture',
  preferredUsername: 'io.flipt.auth.github.preferred_username',
} as const;

export const PENNON_METADATA = {
  /** JSON array of strings: the identity's groups (OIDC: the claim `authorization.groups_claim` names). */
  groups: 'io.pennon.auth.groups',
  /** JSON object: the identity's claims, at most CLAIMS_LIMIT bytes. */
  claims: 'io.pennon.auth.claims',
  /** JSON array of "org" and "org/team" (team slug) a GitHub user belongs to, as far as they were read. */
  github: 'io.pennon.auth.github',
} as const;

/** The claims kept in `io.pennon.auth.claims`, in bytes of JSON. */
export const CLAIMS_LIMIT = 8 * 1024;

/** Protocol values an ID token carries that say nothing about who signed in. */
const PROTOCOL_CLAIMS = new Set(['nonce', 'at_hash', 'c_hash', 's_hash']);

/**
 * The claims as one JSON object of at most `limit` bytes: past it, the largest values are dropped
 * first (a long list of groups goes before `email`), so the identifying claims stay.
 */
export function boundedClaims(claims: Record<string, unknown>, limit = CLAIMS_LIMIT): string {
  const kept: Record<string, unknown> = {};
  const sizes: [string, number][] = [];
  for (const [name, value] of Object.entries(claims)) {
    if (PROTOCOL_CLAIMS.has(name) || value === undefined) continue;
    kept[name] = value;
    sizes.push([name, Buffer.byteLength(JSON.stringify({ [name]: value }))]);
  }
  let text = JSON.stringify(kept);
  sizes.sort((a, b) => b[1] - a[1]);
  for (const [name] of sizes) {
    if (Buffer.byteLength(text) <= limit) break;
    delete kept[name];
    text = JSON.stringify(kept);
  }
  return text;
}

/** A claim read as a list of strings: an array's strings, or a single string as a list of one. */
export function stringList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export interface CreatedSession {
  clientToken: string;
  authentication: Authentication;
}

/** Creates session authentications, each expiring `tokenLifetimeMs` after it was made. */
export class SessionService {
  constructor(
    private readonly store: AuthStore,
    private readonly clock: Clock,
    private readonly tokenLifetimeMs: number,
  ) {}

  /** The same service, its sessions recorded in the audit trail as `origin`'s (a store that keeps one). */
  as(origin: AuditOrigin): SessionService {
    const store = this.store as AuthStore & Partial<Pick<Store, 'as'>>;
    return store.as ? new SessionService(store.as(origin), this.clock, this.tokenLifetimeMs) : this;
  }

  async create(method: Extract<AuthMethod, 'METHOD_OIDC' | 'METHOD_GITHUB'>, metadata: Record<string, string>): Promise<CreatedSession> {
    const clientToken = generateToken();
    const authentication = await this.store.createAuthentication({
      method,
      hashedToken: hashToken(clientToken),
      metadata,
      expiresAt: this.clock.nowMicros() + this.tokenLifetimeMs * 1000,
    });
    return { clientToken, authentication };
  }
}
