/**
 * What the signed-in caller may do, as the server says in `/auth/v1/self`: metadata key
 * `io.pennon.auth.grants` = JSON `{"global": role|null, "namespaces": {"<ns>": role}}` (Pennon's
 * built-in roles, docs/ROLES.md). Every screen asks `can(grants, action, namespace)` here rather
 * than comparing role names itself, so what each role may do is written once.
 *
 * The dashboard only hides or disables what a role cannot do: the server checks every request
 * itself and answers 403 to the rest. Pure (no DOM): the unit tests run it under Node.
 */

export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * - `read`: list and open flags, segments, rules, rollouts, the audit trail;
 * - `evaluate`: the console;
 * - `write`: create, edit, delete and reorder flags, segments, variants, constraints, rules, rollouts;
 * - `admin`: namespaces (create, edit, delete) and API tokens.
 */
export type Action = 'read' | 'evaluate' | 'write' | 'admin';

/** The least role each action needs. */
export const ROLE_NEEDED: Readonly<Record<Action, Role>> = { read: 'viewer', evaluate: 'viewer', write: 'editor', admin: 'admin' };

export interface Grants {
  /** The role in every namespace; null: none outside those listed in `namespaces`. */
  global: Role | null;
  /** A role in one namespace (it adds to `global`, never takes from it). */
  namespaces: Readonly<Record<string, Role>>;
  /**
   * False when self's metadata held no grants: a server without roles (an older Pennon) or with
   * `authorization.required` off, where every authenticated caller may do everything.
   */
  stated: boolean;
}

export const GRANTS_KEY = 'io.pennon.auth.grants';

/** Everything everywhere: what a caller has when the server states no grants. */
export const ALL_GRANTS: Grants = Object.freeze({ global: 'admin', namespaces: Object.freeze({}), stated: false });

/** Nothing anywhere (grants the dashboard cannot read). */
const NO_GRANTS: Grants = Object.freeze({ global: null, namespaces: Object.freeze({}), stated: true });

const RANK: Readonly<Record<Role, number>> = { viewer: 1, editor: 2, admin: 3 };

function asRole(value: unknown): Role | null {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value) ? (value as Role) : null;
}

/**
 * The grants in an authentication's metadata. Absent: everything (ALL_GRANTS). Present but not
 * the JSON described above: nothing — the dashboard offers no change it cannot vouch for, and
 * the server, which wrote them, decides anyway. A role name it does not know counts as none.
 */
export function parseGrants(metadata: Readonly<Record<string, string>> | null | undefined): Grants {
  const raw = metadata?.[GRANTS_KEY];
  if (raw === undefined) return ALL_GRANTS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return NO_GRANTS;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return NO_GRANTS;
  const { global, namespaces } = parsed as { global?: unknown; namespaces?: unknown };
  // No prototype: `__proto__` is a valid namespace key, and must stay one.
  const perNamespace: Record<string, Role> = Object.create(null);
  if (typeof namespaces === 'object' && namespaces !== null && !Array.isArray(namespaces)) {
    for (const [ns, role] of Object.entries(namespaces)) {
      const known = asRole(role);
      if (known) perNamespace[ns] = known;
    }
  }
  return { global: asRole(global), namespaces: perNamespace, stated: true };
}

function higher(a: Role | null, b: Role | null): Role | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

/**
 * The caller's role in `namespace` — the higher of the global role and that namespace's own —
 * or, without a namespace (creating one, API tokens), the global role alone. Null: no access.
 */
export function roleIn(grants: Grants, namespace?: string): Role | null {
  const own = namespace !== undefined && Object.hasOwn(grants.namespaces, namespace) ? grants.namespaces[namespace] : null;
  return higher(grants.global, own);
}

/** Whether the caller may do `action` in `namespace` (without one: everywhere, as namespaces and tokens need). */
export function can(grants: Grants, action: Action, namespace?: string): boolean {
  const role = roleIn(grants, namespace);
  return role !== null && RANK[role] >= RANK[ROLE_NEEDED[action]];
}

/** Why a control is disabled, for its title: "Needs the editor role in namespace default". */
export function deniedBecause(action: Action, namespace?: string): string {
  const role = ROLE_NEEDED[action];
  return namespace === undefined ? `Needs the ${role} role` : `Needs the ${role} role in namespace ${namespace}`;
}

/** "Viewer", "Editor", "Admin"; "No access" for none. */
export function roleLabel(role: Role | null): string {
  return role === null ? 'No access' : role[0].toUpperCase() + role.slice(1);
}

/** The namespaces given a role of their own above the global one, for saying where the caller may do more. */
export function widerIn(grants: Grants): { namespace: string; role: Role }[] {
  return Object.entries(grants.namespaces)
    .filter(([, role]) => grants.global === null || RANK[role] > RANK[grants.global])
    .map(([namespace, role]) => ({ namespace, role }))
    .sort((a, b) => a.namespace.localeCompare(b.namespace));
}
