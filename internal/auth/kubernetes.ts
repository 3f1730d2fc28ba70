import { readFileSync } from 'node:fs';
import { errors, jwtVerify, type FetchImplementation, type JWTPayload } from 'jose';
import { Agent, fetch as undiciFetch } from 'undici';
import type { AuthenticationConfig } from '../config';
import { emptyField, isPennonError, unauthenticated, unavailable, type Clock } from '../core';
import type { FailedAuthentications } from './failures';
import { PENNON_METADATA } from './identity-claims';
import { CLOCK_TOLERANCE_S, JWT_ALGORITHMS } from './jwt';
import { FETCH_TIMEOUT_MS, remoteKeys, type RemoteKeys } from './remote-keys';
import type { AuthService, CreatedToken } from './service';

/**
 * The Kubernetes method (Flipt's `POST /auth/v1/method/kubernetes/serviceaccount`): a pod trades
 * its service account token for a client token. The token is verified against the cluster's own
 * issuer, as Flipt does: the OIDC discovery document at `discovery_url` names the issuer and the
 * keys (`jwks_uri`); both are fetched over TLS trusting `ca_path` only, authenticated with this
 * pod's own service account token (`service_account_token_path`, read again at each fetch: the
 * kubelet rotates it). The issuer is the discovery document's — Kubernetes' issuer rarely equals
 * the in-cluster address it is reached at. The audience is not checked (Flipt skips it too).
 *
 * The client token is an authentications row (METHOD_KUBERNETES) expiring with the service
 * account token, its metadata Flipt's `io.flipt.auth.k8s.*` keys and `io.pennon.auth.sub`.
 * A refused token counts as a failed authentication of its address (failures.ts); a cluster that
 * cannot be reached is an outage (503), not the caller's failure.
 */

export const K8S_METADATA = {
  namespace: 'io.flipt.auth.k8s.namespace',
  podName: 'io.flipt.auth.k8s.pod.name',
  podUid: 'io.flipt.auth.k8s.pod.uid',
  serviceAccountName: 'io.flipt.auth.k8s.serviceaccount.name',
  serviceAccountUid: 'io.flipt.auth.k8s.serviceaccount.uid',
} as const;

type KubernetesConfig = AuthenticationConfig['methods']['kubernetes'];

interface Issuer {
  issuer: string;
  keys: RemoteKeys;
  algorithms: string[];
}

export class KubernetesVerifier {
  private readonly agent: Agent;
  private issuer: Promise<Issuer> | null = null;

  constructor(
    private readonly config: KubernetesConfig,
    private readonly clock: Clock,
    private readonly warn?: (message: string, err: unknown) => void,
  ) {
    // Read at start, as Flipt does: a missing or unusable CA fails the start, naming the key.
    let ca: string;
    try {
      ca = readFileSync(config.ca_path, 'utf8');
    } catch (err) {
      throw new Error(`authentication.methods.kubernetes.ca_path: cannot read ${config.ca_path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`authentication.methods.kubernetes.ca_path: ${config.ca_path} holds no PEM certificate`);
    this.agent = new Agent({ connect: { ca, timeout: FETCH_TIMEOUT_MS } });
  }

  /** The identity a service account token carries: its metadata and expiry (epoch µs). */
  async verify(saToken: string): Promise<{ metadata: Record<string, string>; expiresAt: number }> {
    const issuer = await this.discover();
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(saToken, issuer.keys.getKey, {
        issuer: issuer.issuer,
        algorithms: issuer.algorithms,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.clock.nowMicros() / 1000),
      }));
    } catch (err) {
      if (isPennonError(err)) throw err;
      throw unauthenticated(`verifying service account: ${refusal(err)}`);
    }
    const identity = (claims['kubernetes.io'] ?? {}) as { namespace?: unknown; pod?: { name?: unknown; uid?: unknown }; serviceaccount?: { name?: unknown; uid?: unknown } };
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    return {
      metadata: {
        [K8S_METADATA.namespace]: text(identity.namespace),
        [K8S_METADATA.podName]: text(identity.pod?.name),
        [K8S_METADATA.podUid]: text(identity.pod?.uid),
        [K8S_METADATA.serviceAccountName]: text(identity.serviceaccount?.name),
        [K8S_METADATA.serviceAccountUid]: text(identity.serviceaccount?.uid),
        [PENNON_METADATA.sub]: text(claims.sub),
      },
      expiresAt: claims.exp! * 1_000_000,
    };
  }

  /** The cluster's issuer and keys: discovered at the first exchange, kept once found (a failure is tried again at the next). */
  private discover(): Promise<Issuer> {
    if (!this.issuer) {
      this.issuer = this.readDiscovery();
      this.issuer.catch(() => {
        this.issuer = null;
      });
    }
    return this.issuer;
  }

  private async readDiscovery(): Promise<Issuer> {
    const url = `${this.config.discovery_url.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const response = await this.fetch(url, { headers: new Headers({ accept: 'application/json' }), method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (response.status !== 200) throw unavailable(`authentication.methods.kubernetes.discovery_url: ${url} answered ${response.status}`);
    let document: { issuer?: unknown; jwks_uri?: unknown; id_token_signing_alg_values_supported?: unknown };
    try {
      document = (await response.json()) as typeof document;
    } catch (err) {
      throw unavailable(`authentication.methods.kubernetes.discovery_url: ${url} did not answer JSON`, err);
    }
    if (typeof document.issuer !== 'string' || typeof document.jwks_uri !== 'string') throw unavailable(`authentication.methods.kubernetes.discovery_url: ${url} names no issuer or jwks_uri`);
    let jwksUrl: URL;
    try {
      jwksUrl = new URL(document.jwks_uri);
    } catch {
      throw unavailable(`authentication.methods.kubernetes.discovery_url: ${url} gives a jwks_uri that is not a URL`);
    }
    const listed = Array.isArray(document.id_token_signing_alg_values_supported) ? document.id_token_signing_alg_values_supported : ['RS256'];
    const algorithms = JWT_ALGORITHMS.filter((alg) => listed.includes(alg));
    if (algorithms.length === 0) throw unavailable(`authentication.methods.kubernetes.discovery_url: the cluster signs with ${listed.join(', ')}; Pennon accepts ${JWT_ALGORITHMS.join(', ')}`);
    const keys = remoteKeys(jwksUrl, { name: 'authentication.methods.kubernetes (jwks_uri)', fetch: this.fetch, warn: this.warn });
    return { issuer: document.issuer, keys, algorithms };
  }

  /** A request to the cluster: its CA only, this pod's service account token as the bearer. */
  private readonly fetch: FetchImplementation = async (url, init) => {
    let token: string;
    try {
      token = readFileSync(this.config.service_account_token_path, 'utf8').trim();
    } catch (err) {
      throw unavailable(`authentication.methods.kubernetes.service_account_token_path: cannot read ${this.config.service_account_token_path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`, err);
    }
    const headers: Record<string, string> = Object.fromEntries(new Headers(init.headers).entries());
    headers.authorization ??= `Bearer ${token}`;
    try {
      return (await undiciFetch(url, { method: init.method, redirect: init.redirect, signal: init.signal, headers, dispatcher: this.agent })) as unknown as Response;
    } catch (err) {
      throw unavailable(`authentication.methods.kubernetes: ${url} cannot be reached (${causeOf(err)}; the cluster's CA is ${this.config.ca_path})`, err);
    }
  };

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The exchange itself: the address's failures counted, the client token created through `auth` (the caller's audit origin). */
export class KubernetesExchange {
  constructor(
    private readonly verifier: Pick<KubernetesVerifier, 'verify'>,
    private readonly failures: FailedAuthentications | null,
  ) {}

  async exchange(saToken: string, address: string | undefined, auth: AuthService): Promise<CreatedToken> {
    this.failures?.admit(address);
    if (saToken === '') {
      this.failures?.failed(address, 'kubernetes');
      throw emptyField('serviceAccountToken');
    }
    let identity: { metadata: Record<string, string>; expiresAt: number };
    try {
      identity = await this.verifier.verify(saToken);
    } catch (err) {
      if (isPennonError(err) && err.kind === 'unauthenticated') this.failures?.failed(address, 'kubernetes');
      throw err;
    }
    return auth.createFor('METHOD_KUBERNETES', identity.metadata, identity.expiresAt);
  }
}

function refusal(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'the token has expired';
  if (err instanceof errors.JWTClaimValidationFailed) return err.claim === 'iss' ? 'the token was not issued by this cluster' : `the token's "${err.claim}" claim is not valid`;
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWSSignatureVerificationFailed) return 'the token is not signed by this cluster';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the token\'s algorithm is not accepted';
  return 'the token is malformed';
}

/** What a failed fetch was: the TLS or socket error's code (`UNABLE_TO_VERIFY_LEAF_SIGNATURE`, `ECONNREFUSED`). */
function causeOf(err: unknown): string {
  let current = err as { code?: unknown; cause?: unknown; message?: unknown } | undefined;
  for (let depth = 0; current && depth < 4; depth++) {
    if (typeof current.code === 'string' && current.code !== 'UND_ERR_SOCKET') return current.code;
    current = current.cause as typeof current;
  }
  return err instanceof Error ? err.message : String(err);
}
