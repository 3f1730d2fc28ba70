import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { AuthenticationConfig } from '../config';
import { emptyField, invalidField, notFound, PennonError, type AuditOrigin, type Authentication, type AuthMethod, type Clock } from '../core';
import { ROLES } from '../config';
import { isRole, roleOn, ROLE_METADATA, stronger, type Grants } from './roles';
import type { AuthStore, Store } from '../storage';
import { generateToken, hashToken, TOKEN_METADATA } from './tokens';

/** What creating a token needs; `expiresAt` in epoch microseconds, null for never. */
export interface CreateTokenRequest {
  name: string;
  description: string;
  expiresAt: number | null;
  namespaceKey: string;
  metadata: Record<string, string>;
  /** viewer, editor or admin; '' (or absent): the creator's own role where the token acts. Also read from `metadata[io.pennon.auth.role]`. */
  role?: string;
  /** The creator's roles, which the token's may not exceed; null or absent: no ceiling (the CLI on the database, an instance without authentication). */
  creator?: Grants | null;
}

/** Metadata a token cannot be given: its grants are computed (`/auth/v1/self`), never stored. */
const COMPUTED_METADATA = 'io.pennon.auth.grants';

export interface CreatedToken {
  clientToken: string;
  authentication: Authentication;
}

const DEFAULT_PAGE = 25;
/**
 * Expired tokens deleted per transaction by the cleanup: a few milliseconds of SQLite's time
 * (deleting a token updates four indexes, and records its audit event).
 */
const CLEANUP_BATCH = 200;
const MAX_PAGE = 100;

/**
 * API client tokens: create, list, read, delete, expire, bootstrap and clean up. Used by the
 * HTTP routes and by `pennon token` in-process alike. The token value exists only in the
 * answer to its creation.
 */
export class AuthService {
  constructor(
    private readonly store: AuthStore,
    private readonly clock: Clock,
    /** Told when a token stops being valid (the authenticator drops it from its caches). */
    private readonly onRevoked: (id: string, hashedToken: string | null) => void = () => undefined,
    /** Told when a token is created here (the authenticator forgets it was ever unknown). */
    private readonly onCreated: (hashedToken: string) => void = () => undefined,
  ) {}

  /** The same service, its writes recorded in the audit trail as `origin`'s (a store that keeps one). */
  as(origin: AuditOrigin): AuthService {
    const store = this.store as AuthStore & Partial<Pick<Store, 'as'>>;
    return store.as ? new AuthService(store.as(origin), this.clock, this.onRevoked, this.onCreated) : this;
  }

  async createToken(req: CreateTokenRequest): Promise<CreatedToken> {
    if (req.name === '') throw emptyField('name');
    if (req.name.length > 255) throw invalidField('name', 'must be at most 255 characters');
    if (req.expiresAt !== null && req.expiresAt <= this.clock.nowMicros()) throw invalidField('expiresAt', 'must be in the future');
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.metadata)) metadata[k.toLowerCase()] = v;
    delete metadata[COMPUTED_METADATA];
    const role = tokenRole(req, metadata[ROLE_METADATA]);
    delete metadata[ROLE_METADATA];
    metadata[TOKEN_METADATA.name] = req.name;
    if (req.description !== '') metadata[TOKEN_METADATA.description] = req.description;
    if (req.namespaceKey !== '') metadata[TOKEN_METADATA.namespace] = req.namespaceKey;
    metadata[ROLE_METADATA] = role;
    return this.createFor('METHOD_TOKEN', metadata, req.expiresAt);
  }

  /** A new client token for a sign-in method's identity (the Kubernetes exchange; a session). */
  async createFor(method: AuthMethod, metadata: Record<string, string>, expiresAt: number | null): Promise<CreatedToken> {
    const clientToken = generateToken();
    const hashedToken = hashToken(clientToken);
    const authentication = await this.store.createAuthentication({ method, hashedToken, metadata, expiresAt });
    this.onCreated(hashedToken);
    return { clientToken, authentication };
  }

  /** Flipt's paging for tokens: default 25, at most 100, a decimal offset as the page token. */
  async list(method: AuthMethod | null, limit: number, pageToken: string): Promise<{ items: Authentication[]; nextPageToken: string }> {
    if (limit < 0) throw invalidField('limit', 'must not be negative');
    const size = limit === 0 ? DEFAULT_PAGE : Math.min(limit, MAX_PAGE);
    const offset = pageToken === '' ? 0 : Number(pageToken);
    // Digits only, and few enough to be exact (a longer number would reach the database as a float).
    if (pageToken !== '' && (!/^\d+$/.test(pageToken) || !Number.isSafeInteger(offset))) throw invalidField('pageToken', `"${pageToken}" is not a valid page token`);
    const page = await this.store.listAuthentications(method === 'METHOD_NONE' ? null : method, size, offset);
    return { items: page.items, nextPageToken: page.more ? String(offset + size) : '' };
  }

  async get(id: string): Promise<Authentication> {
    const auth = await this.store.getAuthentication(id);
    if (!auth) throw notFound('getting authentication by token: resource not found');
    return auth;
  }

  /** Deletes a token; false when there was none with that id (the API answers success all the same, as Flipt). */
  async delete(id: string): Promise<boolean> {
    // Read first: a shared cache holds tokens by hash, so its entry can only be dropped by hash.
    const existing = await this.store.getAuthentication(id);
    await this.store.deleteAuthentication(id);
    this.onRevoked(id, existing?.hashedToken ?? null);
    return existing !== null;
  }

  /** Sets an authentication's expiry (default: now), as `PUT /auth/v1/self/expire` does. */
  async expire(id: string, at: number | null): Promise<void> {
    const existing = await this.store.getAuthentication(id);
    await this.store.expireAuthentication(id, at ?? this.clock.nowMicros());
    this.onRevoked(id, existing?.hashedToken ?? null);
  }

  /**
   * At start: if no token authentication exists, create one, from the configured bootstrap
   * token or a random one. Returns what to tell the operator (the token only when generated).
   */
  async bootstrap(config: AuthenticationConfig['methods']['token']): Promise<{ created: false } | { created: true; token: string | null; id: string }> {
    if ((await this.store.countAuthentications('METHOD_TOKEN')) > 0) return { created: false };
    const given = config.bootstrap.token;
    const token = given !== '' ? given : generateToken();
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(config.bootstrap.metadata)) metadata[k.toLowerCase()] = v;
    metadata[TOKEN_METADATA.name] = 'initial_bootstrap_token';
    metadata[TOKEN_METADATA.description] = 'Initial token created when bootstrapping authentication';
    const expiration = config.bootstrap.expiration;
    const hashedToken = hashToken(token);
    const auth = await this.store.createAuthentication({
      method: 'METHOD_TOKEN',
      hashedToken,
      metadata,
      expiresAt: expiration > 0 ? this.clock.nowMicros() + expiration * 1000 : null,
    });
    // A configured bootstrap token may have been presented (and found unknown) before it existed.
    this.onCreated(hashedToken);
    return { created: true, token: given !== '' ? null : token, id: auth.id };
  }

  /**
   * Deletes tokens that expired more than `gracePeriodMs` ago; returns how many. Idempotent: safe
   * on every instance. In batches, each its own transaction with a turn of the event loop between
   * them: tens of thousands of expired tokens (a token per CI job adds up) deleted in one
   * statement held SQLite's synchronous driver, and with it every evaluation, ~1.5 ms per
   * thousand, and held the write lock as long on every database.
   */
  async cleanup(gracePeriodMs: number, method: AuthMethod = 'METHOD_TOKEN'): Promise<number> {
    const before = this.clock.nowMicros() - gracePeriodMs * 1000;
    let deleted = 0;
    for (;;) {
      const batch = await this.store.deleteExpiredAuthentications(method, before, CLEANUP_BATCH);
      deleted += batch;
      if (batch < CLEANUP_BATCH) return deleted;
      await nextTurn();
    }
  }
}

/**
 * The role a new token gets: the one asked for (the body's `role`, or the metadata key — what a
 * gRPC client, whose message has no `role`, can send), never more than its creator holds where
 * the token acts (its namespace, or every namespace for an unscoped token); the creator's own
 * role there when none is asked for.
 */
function tokenRole(req: CreateTokenRequest, fromMetadata: string | undefined): string {
  const asked = req.role ?? '';
  if (asked !== '' && fromMetadata !== undefined && fromMetadata !== asked) throw invalidField('role', `"${asked}" differs from metadata ${ROLE_METADATA} "${fromMetadata}"`);
  const wanted = asked !== '' ? asked : (fromMetadata ?? '');
  if (wanted !== '' && !isRole(wanted)) throw invalidField('role', `"${wanted}" is not a role: one of ${ROLES.join(', ')}`);
  if (!req.creator) return wanted === '' ? 'admin' : wanted;
  const scope = req.namespaceKey === '' ? null : req.namespaceKey;
  const held = roleOn(req.creator, scope);
  const where = scope === null ? 'on every namespace' : `on namespace "${scope}"`;
  if (held === null) throw new PennonError('forbidden', `permission denied: the token's creator holds no role ${where}`);
  if (wanted === '') return held;
  if (stronger(wanted as (typeof ROLES)[number], held) !== held) {
    throw new PennonError('forbidden', `permission denied: a token cannot be given the ${wanted} role: its creator holds ${held} ${where}`);
  }
  return wanted;
}

/**
 * Runs the cleanup of one method's expired authentications (tokens by default; OIDC and GitHub
 * sessions with their own `cleanup` settings) every `interval`, logging what it removed.
 */
export function startCleanup(service: AuthService, config: { interval: number; grace_period: number }, logger: Logger, method: AuthMethod = 'METHOD_TOKEN'): () => void {
  const what = method === 'METHOD_TOKEN' ? 'tokens' : `${method} sessions`;
  const run = () =>
    service.cleanup(config.grace_period, method).then(
      (deleted) => {
        if (deleted > 0) logger.info({ deleted, method }, `deleted expired ${what}`);
      },
      (err: unknown) => logger.warn({ err, method }, `expired ${what} cleanup failed; will retry`),
    );
  void run();
  const timer = setInterval(run, config.interval);
  timer.unref();
  return () => clearInterval(timer);
}
