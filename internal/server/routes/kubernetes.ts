import type { FastifyInstance } from 'fastify';
import type { AuthService, KubernetesExchange } from '../../auth';
import { authenticationToJson, Fields, type CreatedTokenJson } from '../../wire';
import { auditOriginOf } from '../audit-origin';
import { operation } from '../route-table';

/**
 * `POST /auth/v1/method/kubernetes/serviceaccount` (and gRPC's VerifyServiceAccount): a pod's
 * service account token for a client token. Registered only with the method enabled. The
 * exchange (auth/kubernetes.ts) verifies the token against the cluster and counts a refusal
 * against the caller's address; the client token's creation is audited under the caller.
 */
export function kubernetesRoutes(app: FastifyInstance, exchange: KubernetesExchange, auth: AuthService): void {
  operation(app, 'VerifyServiceAccount', async (request): Promise<CreatedTokenJson> => {
    const token = Fields.body(request.body).str('serviceAccountToken');
    const created = await exchange.exchange(token, request.ip, auth.as(auditOriginOf(request)));
    return { clientToken: created.clientToken, authentication: authenticationToJson(created.authentication) };
  });
}
