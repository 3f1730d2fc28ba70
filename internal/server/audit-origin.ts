import { GITHUB_METADATA, JWT_METADATA, K8S_METADATA, OIDC_METADATA, PENNON_METADATA, TOKEN_METADATA } from '../auth';
import type { AuditActor, AuditOrigin, Authentication } from '../core';
import type { CallRequest } from './route-table';

/** The header the dashboard sends with its calls, so its changes are filed under `dashboard`. */
export const CLIENT_HEADER = 'x-pennon-client';

/**
 * Who a request's writes are recorded as in the audit trail: its authentication (id, and the
 * name and email its method knows: a token's name, a person's name and email from OIDC or
 * GitHub, a JWT's, a Kubernetes service account), or — with authentication off — nobody in
 * particular (`none`, as Flipt writes it), with the client's address; which door it came
 * through; its request id.
 */
export function auditOriginOf(request: Pick<CallRequest, 'auth' | 'headers' | 'id' | 'ip' | 'transport'>): AuditOrigin {
  const { auth } = request;
  const actor: AuditActor = auth ? actorOf(auth) : { authentication: 'none' };
  if (request.ip) actor.ip = request.ip;
  const client = request.headers[CLIENT_HEADER];
  const source = request.transport === 'grpc' ? 'grpc' : client === 'dashboard' ? 'dashboard' : 'api';
  return { actor, source, requestId: request.id ?? null };
}

function actorOf(auth: Authentication): AuditActor {
  const m = auth.metadata;
  const actor: AuditActor = { authentication: auth.method.replace(/^METHOD_/, '').toLowerCase(), id: auth.id };
  const name =
    m[TOKEN_METADATA.name] ?? m[OIDC_METADATA.name] ?? m[GITHUB_METADATA.name] ?? m[GITHUB_METADATA.preferredUsername] ?? m[JWT_METADATA.name] ?? m[PENNON_METADATA.sub] ?? k8sAccount(m);
  const email = m[OIDC_METADATA.email] ?? m[GITHUB_METADATA.email] ?? m[JWT_METADATA.email];
  if (name !== undefined && name !== '') actor.name = name;
  if (email !== undefined && email !== '') actor.email = email;
  return actor;
}

function k8sAccount(m: Record<string, string>): string | undefined {
  const [ns, account] = [m[K8S_METADATA.namespace], m[K8S_METADATA.serviceAccountName]];
  return ns && account ? `system:serviceaccount:${ns}:${account}` : undefined;
}
