import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/**
 * Third parties of the machine sign-in methods, on loopback: a JWT issuer (its keys and a JWKS
 * endpoint that can rotate or go away) and a Kubernetes API server's issuer (OIDC discovery and
 * JWKS over TLS, requiring the caller's bearer token). Keys are made with jose at test time.
 */

export const TLS_DIR = resolve(__dirname, '../fixtures/tls');

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
  /** The public key in PEM (SPKI), for `public_key_file`. */
  pem: string;
}

export async function signingKey(alg: 'RS256' | 'RS512' | 'ES256' | 'ES512' | 'EdDSA', kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' && { crv: 'Ed25519' }) });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, jwk, pem: await exportSPKI(publicKey) };
}

/** A JWT signed by `key` (its kid in the header), `exp` an hour on unless the claims say. */
export function signed(key: SigningKey, claims: JWTPayload, nowSeconds = Math.floor(Date.now() / 1000)): Promise<string> {
  return new SignJWT({ exp: nowSeconds + 3600, iat: nowSeconds, ...claims }).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}

/** An unsigned token (`alg: none`) or any header and payload as given, with a signature of our choosing. */
export function handMade(header: object, payload: object, signature = ''): string {
  const part = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part(header)}.${part(payload)}.${signature}`;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((done) => server.close(() => done()));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** An issuer's JWKS endpoint on loopback: the keys it publishes can be changed (rotation). */
export class JwksServer {
  requests = 0;
  private keys: JWK[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(keys: SigningKey[]): Promise<JwksServer> {
    let self: JwksServer | undefined;
    const server = createHttpServer((req, res) => {
      self!.requests++;
      if (req.url !== '/jwks.json') return json(res, 404, {});
      json(res, 200, { keys: self!.keys });
    });
    const port = await listen(server);
    self = new JwksServer(server, `http://127.0.0.1:${port}/jwks.json`);
    self.publish(keys);
    return self;
  }

  publish(keys: SigningKey[]): void {
    this.keys = keys.map((k) => k.jwk);
  }

  stop(): Promise<void> {
    return close(this.server);
  }
}

/**
 * A Kubernetes API server's issuer, on loopback over TLS (the test certificate, which is also the
 * CA Pennon is told to trust): `/.well-known/openid-configuration` and the JWKS, both answering
 * only a caller that presents `bearer` (as the API server requires Pennon's own token).
 */
export class ClusterStandIn {
  /** The Authorization headers the cluster was sent, in order. */
  readonly authorizations: (string | undefined)[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly issuer: string,
  ) {}

  static async start(key: SigningKey, bearer: string, issuer = 'https://kubernetes.default.svc.cluster.local'): Promise<ClusterStandIn> {
    let self: ClusterStandIn | undefined;
    const tls = { cert: readFileSync(resolve(TLS_DIR, 'cert.pem')), key: readFileSync(resolve(TLS_DIR, 'key.pem')) };
    const server = createHttpsServer(tls, (req: IncomingMessage, res: ServerResponse) => {
      self!.authorizations.push(req.headers.authorization);
      if (req.headers.authorization !== `Bearer ${bearer}`) return json(res, 401, { kind: 'Status', code: 401, message: 'Unauthorized' });
      if (req.url === '/.well-known/openid-configuration') {
        return json(res, 200, { issuer, jwks_uri: `${self!.url}/openid/v1/jwks`, response_types_supported: ['id_token'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'] });
      }
      if (req.url === '/openid/v1/jwks') return json(res, 200, { keys: [key.jwk] });
      json(res, 404, {});
    });
    const port = await listen(server);
    self = new ClusterStandIn(server, `https://127.0.0.1:${port}`, issuer);
    return self;
  }

  stop(): Promise<void> {
    return close(this.server);
  }
}

/** A projected service account token's claims, as the kubelet mounts them. */
export function serviceAccountClaims(issuer: string, namespace = 'payments', name = 'checkout'): JWTPayload {
  return {
    iss: issuer,
    aud: ['https://kubernetes.default.svc.cluster.local'],
    sub: `system:serviceaccount:${namespace}:${name}`,
    'kubernetes.io': {
      namespace,
      pod: { name: `${name}-7d9f8c-x2x4z`, uid: '5a1f4c2e-0b8f-4a7e-9f0e-1d2c3b4a5f60' },
      serviceaccount: { name, uid: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b' },
    },
  };
}
