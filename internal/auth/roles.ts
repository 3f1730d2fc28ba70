import { ROLES, type AuthorizationConfig, type Role, type RoleBinding } from '../config';
import type { Authentication } from '../core';
import { TOKEN_METADATA } from './tokens';

/**
 * Who holds which role (issue 21): an authentication's grants, read from the metadata keys each
 * sign-in method stores (the helpers' contract, notes/auth-contract.md) and nothing else:
 *
 * - a token: its role `io.pennon.auth.role` (a token without one — made before roles, or the
 *   bootstrap token — is an admin), on its namespace when it is namespace-scoped, else on all;
 * - any other identity (OIDC, GitHub, Kubernetes, JWT): the `authorization.roles` bindings it
 *   matches by email, group, subject, GitHub organization or team, or claim; `default_role` on
 *   every namespace when it matches none. Several bindings: the strongest role per namespace; a
 *   role on every namespace counts on each of them.
 *
 * With `authorization.required` off, every authenticated caller is an admin (a scoped token on
 * its own namespace only, as before roles). Grants are computed once per authentication id and
 * kept (a bounded number): the gate asks on every request.
 */

/** The metadata keys read here: the token method's, and each sign-in method's identity. */
export const ROLE_METADATA = 'io.pennon.auth.role';
const KEYS = {
  oidcEmail: 'io.flipt.auth.oidc.email',
  oidcEmailVerified: 'io.flipt.auth.oidc.email_verified',
  oidcSub: 'io.flipt.auth.oidc.sub',
  githubEmail: 'io.flipt.auth.github.email',
  github: 'io.pennon.auth.github',
  jwtEmail: 'io.flipt.auth.jwt.email',
  sub: 'io.pennon.auth.sub',
  groups: 'io.pennon.auth.groups',
  claims: 'io.pennon.auth.claims',
} as const;

export interface Grants {
  /** The role held on every namespace. */
  global: Role | null;
  /** Roles held on single namespaces: only those stronger than `global`. */
  namespaces: ReadonlyMap<string, Role>;
}

export const NO_GRANTS: Grants = Object.freeze({ global: null, namespaces: new Map<string, Role>() });
export const ADMIN_EVERYWHERE: Grants = Object.freeze({ global: 'admin', namespaces: new Map<string, Role>() });

const rank = (role: Role | null | undefined): number => (role ? ROLES.indexOf(role) : -1);
export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** The stronger of two roles. */
export function stronger(a: Role | null, b: Role | null): Role | null {
  return rank(a) >= rank(b) ? a : b;
}

/** The role held on `ns` (null: on every namespace, which only a global role covers). */
export function roleOn(grants: Grants, ns: string | null): Role | null {
  if (ns === null) return grants.global;
  return stronger(grants.global, grants.namespaces.get(ns) ?? null);
}

/** The strongest role held anywhere. */
export function highestRole(grants: Grants): Role | null {
  let best = grants.global;
  for (const role of grants.namespaces.values()) best = stronger(best, role);
  return best;
}

/** Whether any role is held at all. */
export function holdsAny(grants: Grants): boolean {
  return grants.global !== null || grants.namespaces.size > 0;
}

/** Grants as `/auth/v1/self` answers them: `{"global": role|null, "namespaces": {ns: role}}`. */
export function grantsToJson(grants: Grants): { global: Role | null; namespaces: Record<string, Role> } {
  return { global: grants.global, namespaces: Object.fromEntries([...grants.namespaces].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
}

/** Collects grants, keeping the strongest per namespace and dropping what a global role covers. */
class GrantsBuilder {
  private global: Role | null = null;
  private readonly byNamespace = new Map<string, Role>();

  add(role: Role, namespaces: readonly string[]): void {
    if (namespaces.length === 0) this.global = stronger(this.global, role);
    else for (const ns of namespaces) this.byNamespace.set(ns, stronger(this.byNamespace.get(ns) ?? null, role)!);
  }

  build(): Grants {
    const namespaces = new Map<string, Role>();
    for (const [ns, role] of this.byNamespace) if (rank(role) > rank(this.global)) namespaces.set(ns, role);
    return { global: this.global, namespaces };
  }
}

/** What bindings can match an identity by; each list lower-cased where the thing it names is case-insensitive. */
export interface Identity {
  emails: string[];
  groups: string[];
  subjects: string[];
  github: string[];
  claims: Record<string, unknown>;
}

function parsed(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const present = (...values: (string | undefined)[]): string[] => values.filter((v): v is string => v !== undefined && v !== '');

/** What a non-token authentication's metadata says about who it is (per its method's keys only). */
export function identityOf(auth: Pick<Authentication, 'method' | 'metadata'>): Identity {
  const m = auth.metadata;
  const claims = parsed(m[KEYS.claims]);
  const identity: Identity = { emails: [], groups: strings(parsed(m[KEYS.groups])), subjects: [], github: [], claims: claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : {} };
  switch (auth.method) {
    case 'METHOD_OIDC':
      // An address the provider says it has not verified proves nothing about who signed in.
      if (m[KEYS.oidcEmailVerified] !== 'false') identity.emails = present(m[KEYS.oidcEmail]);
      identity.subjects = present(m[KEYS.oidcSub]);
      break;
    case 'METHOD_GITHUB':
      identity.emails = present(m[KEYS.githubEmail]);
      identity.github = strings(parsed(m[KEYS.github])).map((g) => g.toLowerCase());
      identity.groups = [];
      identity.claims = {};
      break;
    case 'METHOD_KUBERNETES':
      identity.subjects = present(m[KEYS.sub]);
      identity.groups = [];
      identity.claims = {};
      break;
    case 'METHOD_JWT':
      identity.emails = present(m[KEYS.jwtEmail]);
      identity.subjects = present(m[KEYS.sub]);
      break;
    default:
      return { emails: [], groups: [], subjects: [], github: [], claims: {} };
  }
  identity.emails = identity.emails.map((e) => e.toLowerCase());
  return identity;
}

/** A claim's value by name, or by a dotted path into nested objects (Keycloak's `realm_access.roles`). */
function claimValue(claims: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let current: unknown = claims;
  for (const part of name.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function claimMatches(value: unknown, accepted: readonly string[]): boolean {
  const values = Array.isArray(value) ? value : [value];
  return values.some((v) => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') && accepted.includes(String(v)));
}

/** Whether an identity matches a binding: any one of its lists is enough. */
export function bindingMatches(binding: RoleBinding, identity: Identity): boolean {
  const { match } = binding;
  if (match.emails.some((e) => identity.emails.includes(e.toLowerCase()))) return true;
  if (match.groups.some((g) => identity.groups.includes(g))) return true;
  if (match.subjects.some((s) => identity.subjects.includes(s))) return true;
  if (match.github.some((g) => identity.github.includes(g.toLowerCase()))) return true;
  return Object.entries(match.claims).some(([name, accepted]) => claimMatches(claimValue(identity.claims, name), accepted));
}

export type RolesConfig = Pick<AuthorizationConfig, 'required' | 'default_role' | 'roles'>;

/** Authentications whose grants are kept; past it, the oldest are forgotten first. */
const MAX_KEPT = 10_000;

export class RoleResolver {
  private readonly kept = new Map<string, Grants>();

  constructor(
    private readonly config: RolesConfig,
    private readonly maxKept = MAX_KEPT,
  ) {}

  /** Whether roles are enforced at all (`authorization.required`). */
  get enforced(): boolean {
    return this.config.required;
  }

  /** The authentication's grants (computed once per id: an authentication's metadata never changes). */
  grantsOf(auth: Pick<Authentication, 'id' | 'method' | 'metadata'>): Grants {
    const known = this.kept.get(auth.id);
    if (known) return known;
    const grants = this.compute(auth);
    if (this.kept.size >= this.maxKept) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(auth.id, grants);
    return grants;
  }

  /** How many authentications' grants are kept (tests: the bound holds). */
  get size(): number {
    return this.kept.size;
  }

  private compute(auth: Pick<Authentication, 'method' | 'metadata'>): Grants {
    const builder = new GrantsBuilder();
    if (auth.method === 'METHOD_TOKEN') {
      const scope = auth.metadata[TOKEN_METADATA.namespace];
      const given = auth.metadata[ROLE_METADATA];
      // No role: a token from before roles, or the bootstrap token: an admin. An unreadable one: nothing.
      const role: Role | null = !this.config.required ? 'admin' : given === undefined ? 'admin' : isRole(given) ? given : null;
      if (role) builder.add(role, scope !== undefined && scope !== '' ? [scope] : []);
      return builder.build();
    }
    if (!this.config.required) return ADMIN_EVERYWHERE;
    const identity = identityOf(auth);
    let matched = false;
    for (const binding of this.config.roles) {
      if (!bindingMatches(binding, identity)) continue;
      matched = true;
      builder.add(binding.role, binding.namespaces);
    }
    if (!matched && this.config.default_role !== 'none') builder.add(this.config.default_role, []);
    return builder.build();
  }
}
