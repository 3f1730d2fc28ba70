import { TOKEN_METADATA } from '../auth';
import type { AuditActor, AuditOrigin } from '../core';
import type { CallRequest } from './route-table';

/** The header the dashboard sends with its calls, so its changes are filed under `dashboard`. */
export const CLIENT_HEADER = 'x-pennon-client';

/**
 * Who a request's writes are recorded as in the audit trail: its token (id and name), or — with
 * authentication off — nobody in particular (`none`, as Flipt writes it), with the client's
 * address; which door it came through; its request id.
 */
export function auditOriginOf(request: Pick<CallRequest, 'auth' | 'headers' | 'id' | 'ip' | 'transport'>): AuditOrigin {
  const { auth } = request;
  const actor: AuditActor = auth
    ? { authentication: auth.method === 'METHOD_TOKEN' ? 'token' : auth.method.replace(/^METHOD_/, '').toLowerCase(), id: auth.id, ...(auth.metadata[TOKEN_METADATA.name] !== undefined && { name: auth.metadata[TOKEN_METADATA.name] }) }
    : { authentication: 'none' };
  if (request.ip) actor.ip = request.ip;
  const client = request.headers[CLIENT_HEADER];
  const source = request.transport === 'grpc' ? 'grpc' : client === 'dashboard' ? 'dashboard' : 'api';
  return { actor, source, requestId: request.id ?? null };
}
