import { DEFAULT_NAMESPACE } from '../core/types';
import { decodeBatchRequest } from './evaluation';
import { namespaceOf, type NamespaceRead, type OperationName, type RequestParts } from './routes';

/**
 * What each operation of the wire table needs of its caller (issue 21): Pennon's built-in roles,
 * enforced by the auth gate (internal/server/auth-gate.ts) on every surface, HTTP and gRPC alike.
 * `PERMISSIONS` is checked against `OPERATIONS` by the compiler: an operation added to the table
 * without an entry here fails the build, so no route can slip in unguarded. The dashboard reads
 * this file too (which controls a role can use). docs/ROLES.md holds the same table in words;
 * test/unit/roles-doc.test.ts keeps the two equal (scripts/docs/permission-table.ts renders it).
 */

/**
 * - `public`: no caller needed (health, metrics, sign-in methods, the dashboard's files, the
 *   webhook — authenticated by its provider's signature —, CORS preflights).
 * - `authenticated`: any authenticated caller, whatever its role (its own authentication).
 * - `evaluate`: flag evaluations and the snapshots clients evaluate from.
 * - `read`: the management API's reads, exports, the audit trail, the event stream.
 * - `write`: the management API's changes to a namespace's flags and segments.
 * - `admin`: namespaces themselves, tokens, the instance's configuration, whole-instance imports.
 */
export const PERMISSION_NAMES = ['public', 'authenticated', 'evaluate', 'read', 'write', 'admin'] as const;
export type Permission = (typeof PERMISSION_NAMES)[number];

/** Pennon's roles, weakest first; internal/config's `ROLES` is the same list (auth/roles.ts checks that it is). */
export const ROLE_ORDER = ['viewer', 'editor', 'admin'] as const;
export type RoleName = (typeof ROLE_ORDER)[number];

/** The weakest role that holds each permission; null: none needed (any caller, or any authenticated one). */
export const LEAST_ROLE: Record<Permission, RoleName | null> = {
  public: null,
  authenticated: null,
  evaluate: 'viewer',
  read: 'viewer',
  write: 'editor',
  admin: 'admin',
};

export const PERMISSIONS = {
  Health: 'public',
  Metrics: 'public',
  // The instance's version, storage and authentication settings: any grant (ANY_GRANT), so the dashboard starts for a role on one namespace.
  GetInfo: 'read',
  GetConfiguration: 'admin',

  ListAuthenticationMethods: 'public',
  // Sign-ins: no credential yet (Flipt's login endpoints skip authentication); refusals count against the address.
  OidcAuthorizeUrl: 'public',
  OidcCallback: 'public',
  GithubAuthorizeUrl: 'public',
  GithubCallback: 'public',
  VerifyServiceAccount: 'public',
  CreateToken: 'admin',
  ListAuthentications: 'admin',
  GetAuthentication: 'admin',
  DeleteAuthentication: 'admin',
  GetAuthenticationSelf: 'authenticated',
  ExpireAuthenticationSelf: 'authenticated',

  // ListNamespaces: any grant lets a caller list, and it sees the namespaces it holds a role in (ANY_GRANT).
  ListNamespaces: 'read',
  GetNamespace: 'read',
  CreateNamespace: 'admin',
  UpdateNamespace: 'admin',
  DeleteNamespace: 'admin',

  ListFlags: 'read',
  GetFlag: 'read',
  CreateFlag: 'write',
  UpdateFlag: 'write',
  DeleteFlag: 'write',
  CreateVariant: 'write',
  UpdateVariant: 'write',
  DeleteVariant: 'write',

  ListSegments: 'read',
  GetSegment: 'read',
  CreateSegment: 'write',
  UpdateSegment: 'write',
  DeleteSegment: 'write',
  CreateConstraint: 'write',
  UpdateConstraint: 'write',
  DeleteConstraint: 'write',

  ListRules: 'read',
  GetRule: 'read',
  CreateRule: 'write',
  OrderRules: 'write',
  UpdateRule: 'write',
  DeleteRule: 'write',
  CreateDistribution: 'write',
  UpdateDistribution: 'write',
  DeleteDistribution: 'write',

  ListRollouts: 'read',
  GetRollout: 'read',
  CreateRollout: 'write',
  OrderRollouts: 'write',
  UpdateRollout: 'write',
  DeleteRollout: 'write',

  // The deprecated evaluation API sits in Flipt's management service, but it evaluates: a viewer's.
  Evaluate: 'evaluate',
  BatchEvaluate: 'evaluate',

  EvaluateVariant: 'evaluate',
  EvaluateBoolean: 'evaluate',
  EvaluateBatch: 'evaluate',
  // OFREP's provider configuration names no namespace: any grant (ANY_GRANT), so a client whose role holds in its namespace only can start.
  OfrepConfiguration: 'evaluate',
  OfrepEvaluateFlag: 'evaluate',
  OfrepEvaluateBulk: 'evaluate',
  // Its surface is public (the route authenticates the ticket or header itself), and so it checks this itself too.
  OfrepEventStream: 'evaluate',
  EvaluationSnapshotNamespace: 'evaluate',
  ClientSnapshotNamespace: 'evaluate',
  ClientSnapshotNamespaceStream: 'evaluate',

  ListEnvironments: 'read',
  Webhook: 'public',
  ImportNamespace: 'write',
  ImportAll: 'admin',
  ExportNamespace: 'read',
  ExportAll: 'read',
  NamespaceEvents: 'read',
  ListAuditEvents: 'read',
  ListAllAuditEvents: 'read',
  DashboardFile: 'public',
  CorsPreflight: 'public',
} as const satisfies Record<OperationName, Permission>;

/**
 * Operations that name no namespace yet are open to a caller whose role holds in some namespace
 * only: ListNamespaces (the list then holds those namespaces alone: routes/namespaces.ts),
 * OFREP's configuration and /meta/info (nothing in them belongs to a namespace; the dashboard
 * reads /meta/info first). Every other operation that names no namespace needs its role on every
 * namespace (a global role).
 */
export const ANY_GRANT: ReadonlySet<OperationName> = new Set<OperationName>(['ListNamespaces', 'OfrepConfiguration', 'GetInfo']);

/**
 * The namespaces a request acts on, for roles: one, or — a batch evaluation — each its requests
 * name (a role must hold in all of them); null when it names none (a global role is needed).
 * Unlike namespace-scoped tokens' rule (namespaceOf: a batch over several namespaces names none),
 * a batch over namespaces the caller holds roles in is allowed.
 */
export function namespacesOf(read: NamespaceRead, request: RequestParts): string[] | null {
  if (read.from === 'batch') {
    const names = new Set(decodeBatchRequest(request.body).requests.map((q) => q.namespaceKey || DEFAULT_NAMESPACE));
    return names.size === 0 ? [DEFAULT_NAMESPACE] : [...names];
  }
  const ns = namespaceOf(read, request);
  return ns === null ? null : [ns];
}

/** Whether `held` is at least `needed`. */
export function roleAtLeast(held: RoleName | null | undefined, needed: RoleName): boolean {
  return held !== null && held !== undefined && ROLE_ORDER.indexOf(held) >= ROLE_ORDER.indexOf(needed);
}

/** The caller's grants as `/auth/v1/self` answers them (metadata `io.pennon.auth.grants`, JSON). */
export const GRANTS_METADATA = 'io.pennon.auth.grants';

export interface GrantsJson {
  /** The role held on every namespace, if any. */
  global: RoleName | null;
  /** Roles held on single namespaces (stronger than `global` there, or alone). */
  namespaces: Record<string, RoleName>;
}
