import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient } from '../../support/grpc-client';
import { ClusterStandIn, serviceAccountClaims, signed, signingKey, TLS_DIR, type SigningKey } from '../../support/machine-auth';
import { sampleValue } from '../../support/scrape';
import { expectStatus, startServer, type TestServer } from '../../support/server';

/**
 * The Kubernetes method against a real server and a stand-in for the cluster's issuer on
 * loopback (OIDC discovery and JWKS over TLS, answering only Pennon's own service account
 * token): a pod's service account token traded for a client token, which then authenticates.
 */

const PATH = '/auth/v1/method/kubernetes/serviceaccount';
const POD_TOKEN = 'pennon-pod-own-token';
const GRPC_UNAVAILABLE = 14;

describe('Kubernetes service account exchange', () => {
  let dir: string;
  let key: SigningKey;
  let cluster: ClusterStandIn;
  let server: TestServer;
  const now = () => Math.floor(Date.now() / 1000);
  const env = (extra: Record<string, string> = {}) => ({
    PENNON_AUTHENTICATION_REQUIRED: 'true',
    PENNON_AUTHENTICATION_METHODS_KUBERNETES_ENABLED: 'true',
    PENNON_AUTHENTICATION_METHODS_KUBERNETES_DISCOVERY_URL: cluster.url,
    PENNON_AUTHENTICATION_METHODS_KUBERNETES_CA_PATH: resolve(TLS_DIR, 'cert.pem'),
    PENNON_AUTHENTICATION_METHODS_KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH: join(dir, 'token'),
    PENNON_AUTHENTICATION_RATE_LIMIT_MAX_FAILURES: '1000',
    ...extra,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pennon-k8s-'));
    writeFileSync(join(dir, 'token'), `${POD_TOKEN}\n`);
    key = await signingKey('RS256', 'cluster-key');
    cluster = await ClusterStandIn.start(key, POD_TOKEN);
    server = await startServer(env());
  });
  afterAll(async () => {
    await server?.stop();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the Kubernetes method as enabled', async () => {
    const { methods } = expectStatus(await server.api.get('/auth/v1/method'), 200);
    expect(methods).toContainEqual({ method: 'METHOD_KUBERNETES', enabled: true, sessionCompatible: false });
  });

  it('trades a service account token for a client token that then authenticates', async () => {
    const exp = now() + 1800;
    const saToken = await signed(key, { ...serviceAccountClaims(cluster.issuer), exp });
    const created = expectStatus(await server.api.post(PATH, { serviceAccountToken: saToken }), 200);
    expect(created.clientToken).toMatch(/^[A-Za-z0-9_-]{43}=$/);
    expect(created.authentication).toMatchObject({
      method: 'METHOD_KUBERNETES',
      expiresAt: new Date(exp * 1000).toISOString().replace('.000Z', 'Z'),
      metadata: {
        'io.flipt.auth.k8s.namespace': 'payments',
        'io.flipt.auth.k8s.pod.name': 'checkout-7d9f8c-x2x4z',
        'io.flipt.auth.k8s.pod.uid': '5a1f4c2e-0b8f-4a7e-9f0e-1d2c3b4a5f60',
        'io.flipt.auth.k8s.serviceaccount.name': 'checkout',
        'io.flipt.auth.k8s.serviceaccount.uid': '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
        'io.pennon.auth.sub': 'system:serviceaccount:payments:checkout',
      },
    });
    // Pennon authenticated to the cluster with its own token, re-read from the file.
    expect(cluster.authorizations.length).toBeGreaterThanOrEqual(2);
    expect(new Set(cluster.authorizations)).toEqual(new Set([`Bearer ${POD_TOKEN}`]));

    const self = expectStatus(await server.api.withHeaders({ authorization: `Bearer ${created.clientToken}` }).get('/auth/v1/self'), 200);
    expect(self).toMatchObject({ id: created.authentication.id, method: 'METHOD_KUBERNETES' });
    // The body's field in snake_case too, as the gateway reads it.
    expectStatus(await server.api.post(PATH, { service_account_token: saToken }), 200);
  });

  it('refuses a token of another issuer, an expired one, one signed by another key; 400 without one', async () => {
    const stranger = await signingKey('RS256', 'cluster-key');
    const before = sampleValue(await (await fetch(`${server.url}/metrics`)).text(), 'service_auth_failures_total', { reason: 'kubernetes' });
    const cases: [string, Promise<string>, RegExp][] = [
      ['another issuer', signed(key, serviceAccountClaims('https://other-cluster.example')), /not issued by this cluster/],
      ['expired', signed(key, { ...serviceAccountClaims(cluster.issuer), exp: now() - 600 }), /expired/],
      ['another key', signed(stranger, serviceAccountClaims(cluster.issuer)), /not signed by this cluster/],
    ];
    for (const [what, token, reason] of cases) {
      const res = await server.api.post(PATH, { serviceAccountToken: await token });
      expect(res.status, what).toBe(401);
      expect(res.body.message, what).toMatch(reason);
    }
    const empty = await server.api.post(PATH, {});
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe('invalid field serviceAccountToken: must not be empty');
    const after = sampleValue(await (await fetch(`${server.url}/metrics`)).text(), 'service_auth_failures_total', { reason: 'kubernetes' });
    expect(after - before).toBe(4);
  });

  it('exchanges over gRPC (AuthenticationMethodKubernetesService/VerifyServiceAccount)', async () => {
    const grpc = new GrpcClient(server.service.grpcPort);
    try {
      const saToken = await signed(key, serviceAccountClaims(cluster.issuer, 'batch', 'nightly'));
      const answer = await grpc.call('flipt.auth.AuthenticationMethodKubernetesService/VerifyServiceAccount', { serviceAccountToken: saToken });
      expect(answer.clientToken).toMatch(/=$/);
      expect(answer.authentication).toMatchObject({ method: 'METHOD_KUBERNETES', metadata: { 'io.flipt.auth.k8s.namespace': 'batch' } });
      const flags = await grpc.withToken(answer.clientToken).call('flipt.Flipt/ListFlags', { namespaceKey: 'default' });
      expect(flags.flags).toEqual([]);
    } finally {
      grpc.close();
    }
  });

  it('answers 503 naming the CA when the cluster is not signed by it', async () => {
    // A public root CA: valid, and not the one that signed the stand-in's certificate.
    writeFileSync(join(dir, 'other-ca.pem'), rootCertificates[0]);
    const other = await startServer(env({ PENNON_AUTHENTICATION_METHODS_KUBERNETES_CA_PATH: join(dir, 'other-ca.pem') }));
    try {
      const res = await other.api.post(PATH, { serviceAccountToken: await signed(key, serviceAccountClaims(cluster.issuer)) });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: GRPC_UNAVAILABLE, message: expect.stringMatching(/cannot be reached \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)[^)]*other-ca\.pem\)/) });
    } finally {
      await other.stop();
    }
  });

  it('answers 503 when the cluster refuses Pennon\'s own token, and recovers once the file holds a good one', async () => {
    const tokenFile = join(dir, 'rotating-token');
    writeFileSync(tokenFile, 'stale-token');
    const other = await startServer(env({ PENNON_AUTHENTICATION_METHODS_KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH: tokenFile }));
    try {
      const saToken = await signed(key, serviceAccountClaims(cluster.issuer));
      const refused = await other.api.post(PATH, { serviceAccountToken: saToken });
      expect(refused.status).toBe(503);
      expect(refused.body.message).toMatch(/discovery_url: .*answered 401/);
      writeFileSync(tokenFile, POD_TOKEN); // the kubelet rotated it
      expectStatus(await other.api.post(PATH, { serviceAccountToken: saToken }), 200);
    } finally {
      await other.stop();
    }
  });

  it('fails the start naming ca_path when the CA cannot be read', async () => {
    await expect(startServer(env({ PENNON_AUTHENTICATION_METHODS_KUBERNETES_CA_PATH: join(dir, 'no-ca.crt') }))).rejects.toThrow(/kubernetes\.ca_path: cannot read .*no-ca\.crt \(ENOENT\)/);
  });
});
