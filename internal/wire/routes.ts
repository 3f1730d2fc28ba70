import { DEFAULT_NAMESPACE } from '../core/types';
import { decodeBatchRequest, decodeEvaluationRequest } from './evaluation';
import { Fields } from './fields';
import { ofrepNamespace } from './ofrep';

/**
 * Every HTTP route Pennon serves, as data: one entry per operation (Flipt's RPC where Flipt has
 * one), with the paths it is served on. The server registers its routes from this table and
 * refuses any other (internal/server/route-table.ts); the auth gate reads each route's surface
 * and namespace here; tests walk it. The gRPC server (internal/server/grpc/calls.ts) hangs off
 * the same entries: `rpc` names the gRPC method Flipt serves the operation on.
 */

/** Who may call a route, for authentication: `authentication.exclude.*` names these. */
export type Surface = 'management' | 'evaluation' | 'ofrep' | 'auth' | 'meta' | 'public';

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS';

/** How a request names the namespace it acts on (namespace-scoped tokens may act on their own only). */
export type NamespaceRead =
  /** None: listing namespaces, the whole-instance import; a scoped token is refused. */
  | { from: 'none' }
  /** A path parameter ('' reads as `default`). */
  | { from: 'path'; param: string }
  /** Family A (`/api/v1/…`): `namespaceKey` in the query (GET, HEAD, DELETE) or the body, `default` without it. */
  | { from: 'family-a' }
  /**
   * A body field: the key of the namespace being created; a token's namespace (`optional`: a
   * token without one is for every namespace, and the request names none).
   */
  | { from: 'body'; field: string; optional?: boolean }
  /** An evaluation request's `namespaceKey`, read by the decoder the handler uses. */
  | { from: 'evaluation' }
  /** A batch names one namespace only if all its requests agree. */
  | { from: 'batch' }
  /** OFREP: X-Flipt-Namespace. */
  | { from: 'header' };

/** A list route's paging: `limit`, `pageToken` and (where read) `offset`. */
export interface Paging {
  /** The array holding the items. */
  items: string;
  /** Whether `offset` is read (the token list pages by token only). */
  offset: boolean;
  /** The page token names the last item seen (`{"before": id}`), not an offset: a list that only grows at its head (the audit trail). */
  keyset?: boolean;
}

/** When a route exists: always, or only with a setting (or the licence, for the webhook). */
export type Presence = 'always' | 'database' | 'token-method' | 'oidc' | 'github' | 'kubernetes' | 'metrics' | 'git' | 'webhook' | 'ui' | 'cors';

export interface Binding {
  /** The URL template (find-my-way's: `:param`, `*`). */
  path: string;
  namespace: NamespaceRead;
}

export interface Operation {
  /** The gRPC method Flipt serves the same operation on (`flipt.Flipt/GetFlag`); null when there is none. */
  rpc: string | null;
  method: RouteMethod;
  surface: Surface;
  paging: Paging | null;
  when: Presence;
  /** The dashboard: one GET route per built file, all standing under this entry's path. */
  staticFiles?: boolean;
  bindings: readonly Binding[];
}

const NONE: NamespaceRead = { from: 'none' };
const FAMILY_B: NamespaceRead = { from: 'path', param: 'namespaceKey' };

function op(rpc: string | null, method: RouteMethod, surface: Surface, path: string, namespace: NamespaceRead = NONE, extra: Partial<Operation> = {}): Operation {
  return { rpc, method, surface, paging: null, when: 'always', bindings: [{ path, namespace }], ...extra };
}

/**
 * A management RPC: Family B (`/api/v1/namespaces/{ns}/…`) and, unless `namespacedOnly`, Family
 * A (`/api/v1/…`), as Flipt's gateway binds them.
 */
function flipt(name: string, method: RouteMethod, suffix: string, options: { namespacedOnly?: boolean; items?: string } = {}): Operation {
  const bindings: Binding[] = [{ path: `/api/v1/namespaces/:namespaceKey${suffix}`, namespace: FAMILY_B }];
  if (!options.namespacedOnly) bindings.push({ path: `/api/v1${suffix}`, namespace: { from: 'family-a' } });
  const paging = options.items ? { items: options.items, offset: true } : null;
  return { rpc: `flipt.Flipt/${name}`, method, surface: 'management', paging, when: 'always', bindings };
}

const AUTH = 'flipt.auth.AuthenticationService';

export const OPERATIONS = {
  Health: op('grpc.health.v1.Health/Check', 'GET', 'public', '/health'),
  Metrics: op(null, 'GET', 'public', '/metrics', NONE, { when: 'metrics' }),
  GetInfo: op('flipt.meta.MetadataService/GetInfo', 'GET', 'meta', '/meta/info'),
  GetConfiguration: op('flipt.meta.MetadataService/GetConfiguration', 'GET', 'meta', '/meta/config'),

  ListAuthenticationMethods: op('flipt.auth.PublicAuthenticationService/ListAuthenticationMethods', 'GET', 'public', '/auth/v1/method'),
  CreateToken: op('flipt.auth.AuthenticationMethodTokenService/CreateToken', 'POST', 'auth', '/auth/v1/method/token', { from: 'body', field: 'namespaceKey', optional: true }, { when: 'token-method' }),
  // A sign-in: no token needed (Flipt's login endpoints skip authentication); refusals count against the address.
  VerifyServiceAccount: op('flipt.auth.AuthenticationMethodKubernetesService/VerifyServiceAccount', 'POST', 'public', '/auth/v1/method/kubernetes/serviceaccount', NONE, { when: 'kubernetes' }),
  ListAuthentications: op(`${AUTH}/ListAuthentications`, 'GET', 'auth', '/auth/v1/tokens', NONE, { paging: { items: 'authentications', offset: false } }),
  GetAuthentication: op(`${AUTH}/GetAuthentication`, 'GET', 'auth', '/auth/v1/tokens/:id'),
  DeleteAuthentication: op(`${AUTH}/DeleteAuthentication`, 'DELETE', 'auth', '/auth/v1/tokens/:id'),
  // Browser sign-in (internal/server/routes/sign-in.ts): a 302 and cookies for a browser,
  // Flipt's JSON otherwise. Their RPCs are declared in proto/ but not served over gRPC (the
  // flow's state lives in a cookie): UNIMPLEMENTED there, as with the methods off.
  OidcAuthorizeUrl: op('flipt.auth.AuthenticationMethodOIDCService/AuthorizeURL', 'GET', 'public', '/auth/v1/method/oidc/:provider/authorize', NONE, { when: 'oidc' }),
  OidcCallback: op('flipt.auth.AuthenticationMethodOIDCService/Callback', 'GET', 'public', '/auth/v1/method/oidc/:provider/callback', NONE, { when: 'oidc' }),
  GithubAuthorizeUrl: op('flipt.auth.AuthenticationMethodGithubService/AuthorizeURL', 'GET', 'public', '/auth/v1/method/github/authorize', NONE, { when: 'github' }),
  GithubCallback: op('flipt.auth.AuthenticationMethodGithubService/Callback', 'GET', 'public', '/auth/v1/method/github/callback', NONE, { when: 'github' }),
  GetAuthenticationSelf: op(`${AUTH}/GetAuthenticationSelf`, 'GET', 'auth', '/auth/v1/self'),
  ExpireAuthenticationSelf: op(`${AUTH}/ExpireAuthenticationSelf`, 'PUT', 'auth', '/auth/v1/self/expire'),

  // Namespaces exist only in Family B.
  ListNamespaces: op('flipt.Flipt/ListNamespaces', 'GET', 'management', '/api/v1/namespaces', NONE, { paging: { items: 'namespaces', offset: true } }),
  GetNamespace: op('flipt.Flipt/GetNamespace', 'GET', 'management', '/api/v1/namespaces/:key', { from: 'path', param: 'key' }),
  CreateNamespace: op('flipt.Flipt/CreateNamespace', 'POST', 'management', '/api/v1/namespaces', { from: 'body', field: 'key' }),
  UpdateNamespace: op('flipt.Flipt/UpdateNamespace', 'PUT', 'management', '/api/v1/namespaces/:key', { from: 'path', param: 'key' }),
  DeleteNamespace: op('flipt.Flipt/DeleteNamespace', 'DELETE', 'management', '/api/v1/namespaces/:key', { from: 'path', param: 'key' }),

  ListFlags: flipt('ListFlags', 'GET', '/flags', { items: 'flags' }),
  GetFlag: flipt('GetFlag', 'GET', '/flags/:key'),
  CreateFlag: flipt('CreateFlag', 'POST', '/flags'),
  UpdateFlag: flipt('UpdateFlag', 'PUT', '/flags/:key'),
  DeleteFlag: flipt('DeleteFlag', 'DELETE', '/flags/:key'),
  CreateVariant: flipt('CreateVariant', 'POST', '/flags/:flagKey/variants'),
  UpdateVariant: flipt('UpdateVariant', 'PUT', '/flags/:flagKey/variants/:id'),
  DeleteVariant: flipt('DeleteVariant', 'DELETE', '/flags/:flagKey/variants/:id'),

  ListSegments: flipt('ListSegments', 'GET', '/segments', { items: 'segments' }),
  GetSegment: flipt('GetSegment', 'GET', '/segments/:key'),
  CreateSegment: flipt('CreateSegment', 'POST', '/segments'),
  UpdateSegment: flipt('UpdateSegment', 'PUT', '/segments/:key'),
  DeleteSegment: flipt('DeleteSegment', 'DELETE', '/segments/:key'),
  CreateConstraint: flipt('CreateConstraint', 'POST', '/segments/:segmentKey/constraints'),
  UpdateConstraint: flipt('UpdateConstraint', 'PUT', '/segments/:segmentKey/constraints/:id'),
  DeleteConstraint: flipt('DeleteConstraint', 'DELETE', '/segments/:segmentKey/constraints/:id'),

  ListRules: flipt('ListRules', 'GET', '/flags/:flagKey/rules', { items: 'rules' }),
  GetRule: flipt('GetRule', 'GET', '/flags/:flagKey/rules/:id'),
  CreateRule: flipt('CreateRule', 'POST', '/flags/:flagKey/rules'),
  // A static segment: it wins over `rules/:id`, as `order` does in Flipt.
  OrderRules: flipt('OrderRules', 'PUT', '/flags/:flagKey/rules/order'),
  UpdateRule: flipt('UpdateRule', 'PUT', '/flags/:flagKey/rules/:id'),
  DeleteRule: flipt('DeleteRule', 'DELETE', '/flags/:flagKey/rules/:id'),
  CreateDistribution: flipt('CreateDistribution', 'POST', '/flags/:flagKey/rules/:ruleId/distributions'),
  UpdateDistribution: flipt('UpdateDistribution', 'PUT', '/flags/:flagKey/rules/:ruleId/distributions/:id'),
  DeleteDistribution: flipt('DeleteDistribution', 'DELETE', '/flags/:flagKey/rules/:ruleId/distributions/:id'),

  // Rollouts exist only in Family B; their list names its array `rules`, as Flipt's does.
  ListRollouts: flipt('ListRollouts', 'GET', '/flags/:flagKey/rollouts', { namespacedOnly: true, items: 'rules' }),
  GetRollout: flipt('GetRollout', 'GET', '/flags/:flagKey/rollouts/:id', { namespacedOnly: true }),
  CreateRollout: flipt('CreateRollout', 'POST', '/flags/:flagKey/rollouts', { namespacedOnly: true }),
  OrderRollouts: flipt('OrderRollouts', 'PUT', '/flags/:flagKey/rollouts/order', { namespacedOnly: true }),
  UpdateRollout: flipt('UpdateRollout', 'PUT', '/flags/:flagKey/rollouts/:id', { namespacedOnly: true }),
  DeleteRollout: flipt('DeleteRollout', 'DELETE', '/flags/:flagKey/rollouts/:id', { namespacedOnly: true }),

  // The deprecated evaluation API: part of Flipt's management service.
  Evaluate: flipt('Evaluate', 'POST', '/evaluate'),
  BatchEvaluate: flipt('BatchEvaluate', 'POST', '/batch-evaluate'),

  EvaluateVariant: op('flipt.evaluation.EvaluationService/Variant', 'POST', 'evaluation', '/evaluate/v1/variant', { from: 'evaluation' }),
  EvaluateBoolean: op('flipt.evaluation.EvaluationService/Boolean', 'POST', 'evaluation', '/evaluate/v1/boolean', { from: 'evaluation' }),
  EvaluateBatch: op('flipt.evaluation.EvaluationService/Batch', 'POST', 'evaluation', '/evaluate/v1/batch', { from: 'batch' }),
  OfrepConfiguration: op('flipt.ofrep.OFREPService/GetProviderConfiguration', 'GET', 'ofrep', '/ofrep/v1/configuration'),
  OfrepEvaluateFlag: op('flipt.ofrep.OFREPService/EvaluateFlag', 'POST', 'ofrep', '/ofrep/v1/evaluate/flags/:key', { from: 'header' }),
  OfrepEvaluateBulk: op('flipt.ofrep.OFREPService/EvaluateBulk', 'POST', 'ofrep', '/ofrep/v1/evaluate/flags', { from: 'header' }),
  // OFREP's event stream (ADR-0008) at Flipt v2's path; authenticated by the route itself (a
  // ticket in the URL, since a browser's EventSource sends no Authorization header, or the header).
  OfrepEventStream: op(null, 'GET', 'public', '/ofrep/v1/_stream/:environmentKey/:namespaceKey/events', { from: 'path', param: 'namespaceKey' }),
  EvaluationSnapshotNamespace: op('flipt.evaluation.DataService/EvaluationSnapshotNamespace', 'GET', 'evaluation', '/internal/v1/evaluation/snapshot/namespace/:key', {
    from: 'path',
    param: 'key',
  }),

  // Flipt v2's client API for client-side SDKs (ClientEvaluationService over HTTP; Pennon's gRPC
  // server has Flipt v1's services only): a namespace's snapshot with its digest, and the stream
  // of its snapshots. `environment` is the database's `default` or a Git environment.
  ClientSnapshotNamespace: op(null, 'GET', 'evaluation', '/client/v2/environments/:environment/namespaces/:key/snapshot', { from: 'path', param: 'key' }),
  ClientSnapshotNamespaceStream: op(null, 'GET', 'evaluation', '/client/v2/environments/:environment/namespaces/:key/stream', { from: 'path', param: 'key' }),

  // Flipt v2's environments (Git storage) and its inbound webhook, authenticated by the provider's own signature.
  ListEnvironments: op(null, 'GET', 'management', '/api/v2/environments', NONE, { when: 'git' }),
  Webhook: op(null, 'POST', 'public', '/api/v2/webhooks/:environment', NONE, { when: 'webhook' }),
  // Pennon's bulk import (Flipt has none).
  ImportNamespace: op(null, 'POST', 'management', '/api/v1/namespaces/:namespaceKey/import', FAMILY_B),
  ImportAll: op(null, 'POST', 'management', '/api/v1/import'),
  // Pennon's bulk export (Flipt has none), where flags are in the database.
  ExportNamespace: op(null, 'GET', 'management', '/api/v1/namespaces/:namespaceKey/export', FAMILY_B, { when: 'database' }),
  ExportAll: op(null, 'GET', 'management', '/api/v1/export', NONE, { when: 'database' }),
  // Pennon's namespace event stream (Server-Sent Events: wire/events.ts), which the dashboard follows to stay live.
  NamespaceEvents: op(null, 'GET', 'management', '/api/v1/namespaces/:namespaceKey/events', FAMILY_B),
  // Pennon's audit trail (wire/audit.ts): a namespace's changes, or every namespace's (an unscoped token's).
  ListAuditEvents: op(null, 'GET', 'management', '/api/v1/namespaces/:namespaceKey/audit/events', FAMILY_B, { paging: { items: 'events', offset: false, keyset: true } }),
  ListAllAuditEvents: op(null, 'GET', 'management', '/api/v1/audit/events', NONE, { paging: { items: 'events', offset: false, keyset: true } }),
  DashboardFile: op(null, 'GET', 'public', '/*', NONE, { when: 'ui', staticFiles: true }),
  CorsPreflight: op(null, 'OPTIONS', 'public', '*', NONE, { when: 'cors' }),
} as const satisfies Record<string, Operation>;

export type OperationName = keyof typeof OPERATIONS;

/** One path of one operation: what the server registers as one route. */
export interface RouteSpec extends Omit<Operation, 'bindings'>, Binding {
  name: OperationName;
}

/** Every route, operation by operation. */
export const ROUTES: readonly RouteSpec[] = Object.entries(OPERATIONS).flatMap(([name, { bindings, ...operation }]) =>
  bindings.map((binding): RouteSpec => ({ name: name as OperationName, ...operation, ...binding })),
);

/** The routes of one operation (two for a management RPC on both families). */
export function routesOf(name: OperationName): readonly RouteSpec[] {
  return ROUTES.filter((r) => r.name === name);
}

/** What a namespace reader looks at: the request as the router and the body parser leave it. */
export interface RequestParts {
  method: string;
  params: unknown;
  query: unknown;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** The namespace a request acts on, as its route reads it; null when it names none. */
export function namespaceOf(read: NamespaceRead, request: RequestParts): string | null {
  switch (read.from) {
    case 'none':
      return null;
    case 'path':
      return (request.params as Record<string, string | undefined>)[read.param] || DEFAULT_NAMESPACE;
    case 'family-a': {
      const fromQuery = request.method === 'GET' || request.method === 'HEAD' || request.method === 'DELETE';
      return (fromQuery ? Fields.query(request.query) : Fields.body(request.body)).str('namespaceKey') || DEFAULT_NAMESPACE;
    }
    case 'body':
      return Fields.body(request.body).str(read.field) || (read.optional ? null : DEFAULT_NAMESPACE);
    case 'evaluation':
      return decodeEvaluationRequest(request.body).namespaceKey || DEFAULT_NAMESPACE;
    case 'batch': {
      const namespaces = new Set(decodeBatchRequest(request.body).requests.map((q) => q.namespaceKey || DEFAULT_NAMESPACE));
      return namespaces.size === 1 ? [...namespaces][0] : null;
    }
    case 'header':
      return ofrepNamespace(request.headers);
  }
}
