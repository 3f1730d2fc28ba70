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
