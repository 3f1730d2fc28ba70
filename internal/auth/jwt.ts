import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { AuthenticationConfig } from '../config';
import { isPennonError, unauthenticated, type Authentication, type Clock } from '../core';
import { boundedClaims, PENNON_METADATA, stringList } from './identity-claims';
import { remoteKeys } from './remote-keys';

/**
 * `Authorization: JWT <jwt>` (Flipt's scheme): a machine's identity in a JWT its issuer signed,
 * checked against the issuer's keys — `jwks_url` (remote-keys.ts) or `public_key_file` (read
 * once at start) — and `validate_claims`. Nothing is stored: each request's Authentication is
 * built from the token (id `jwt:` + its SHA-256), and a verified token is kept for at most
 * VERIFIED_MS (never past its `exp`), so a client sending the same JWT per request pays one
 * signature check per token, not per request.
 *
 * Accepted: RS256, RS512, ES256, ES512, EdDSA — never `none` nor a shared-secret HS* (jose checks
 * the header's alg against the list before it looks for a key). `exp` is required (a JWT that
 * never expires would be a password that cannot be changed); `exp` and `nbf` are honoured with
 * CLOCK_TOLERANCE_S of clock skew either way.
 */

export const JWT_ALGORITHMS = ['RS256', 'RS512', 'ES256', 'ES512', 'EdDSA'] as const;
export const CLOCK_TOLERANCE_S = 30;
const VERIFIED_MS = 10_000;
const MAX_VERIFIED = 10_000;

/** The metadata keys of a JWT identity (Flipt's, then Pennon's: auth-contract). */
export const JWT_METADATA = {
  email: 'io.flipt.auth.jwt.email',
  name: 'io.flipt.auth.jwt.name',
  picture: 'io.flipt.auth.jwt.picture',
  sub: 'io.flipt.auth.jwt.sub',
} as const;

type JwtConfig = AuthenticationConfig['methods']['jwt'];

export interface JwtVerifierOptions {
  /** The claim holding the identity's groups (`authorization.groups_claim`). */
  groupsClaim: string;
  warn?: (message: string, err: unknown) => void;
}

export class JwtVerifier {
  private readonly verified = new Map<string, { auth: Authentication; until: number }>();

  private constructor(
    private readonly key: KeyObject | JWTVerifyGetKey,
    private readonly algorithms: string[],
    private readonly config: JwtConfig,
    private readonly clock: Clock,
    private readonly groupsClaim: string,
  ) {}

  /** From `authentication.methods.jwt`; a public key file that cannot be used fails here, naming it. */
  static fromConfig(config: JwtConfig, clock: Clock, options: JwtVerifierOptions): JwtVerifier {
    if (config.public_key_file !== '') {
      const { key, algorithms } = readPublicKey(config.public_key_file);
      return new JwtVerifier(key, algorithms, config, clock, options.groupsClaim);
    }
    let url: URL;
    try {
      url = new URL(config.jwks_url);
    } catch {
      throw new Error(`authentication.methods.jwt.jwks_url: "${config.jwks_url}" is not a URL`);
    }
    const keys = remoteKeys(url, { name: 'authentication.methods.jwt.jwks_url', warn: options.warn });
    return new JwtVerifier(keys.getKey, [...JWT_ALGORITHMS], config, clock, options.groupsClaim);
  }

  /** The identity a JWT carries; Unauthenticated when it does not verify, Unavailable when the keys cannot be fetched. */
  async verify(token: string): Promise<Authentication> {
    const id = `jwt:${createHash('sha256').update(token).digest('base64url')}`;
    const nowMs = this.clock.nowMicros() / 1000;
    const kept = this.verified.get(id);
    if (kept && kept.until > nowMs) return kept.auth;
    const { validate_claims: expected } = this.config;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key as JWTVerifyGetKey, {
        algorithms: this.algorithms,
        issuer: expected.issuer || undefined,
        subject: expected.subject || undefined,
        audience: expected.audiences.length > 0 ? expected.audiences : undefined,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(nowMs),
      }));
    } catch (err) {
      if (isPennonError(err)) throw err; // the keys could not be fetched (remote-keys.ts)
      throw unauthenticated(`request was not authenticated: ${jwtRefusal(err)}`);
    }
    const auth = this.identity(id, payload, nowMs);
    if (this.verified.size >= MAX_VERIFIED) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(id, { auth, until: Math.min(nowMs + VERIFIED_MS, (payload.exp! + CLOCK_TOLERANCE_S) * 1000) });
    return auth;
  }

  private identity(id: string, claims: JWTPayload, nowMs: number): Authentication {
    const metadata: Record<string, string> = {};
    // Flipt reads its keys from a `user` object claim; a token without one, from the standard claims.
    const user = isRecord(claims.user) ? claims.user : { email: claims.email, sub: claims.sub, image: claims.picture, name: claims.name };
    for (const [claim, key] of [['email', JWT_METADATA.email], ['sub', JWT_METADATA.sub], ['image', JWT_METADATA.picture], ['name', JWT_METADATA.name]] as const) {
      const value = user[claim];
      if (value !== undefined && value !== null) metadata[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
    if (typeof claims.sub === 'string') metadata[PENNON_METADATA.sub] = claims.sub;
    metadata[PENNON_METADATA.groups] = JSON.stringify(stringList(claims[this.groupsClaim]));
    metadata[PENNON_METADATA.claims] = boundedClaims(claims);
    const issuedAt = typeof claims.iat === 'number' ? claims.iat * 1_000_000 : Math.round(nowMs * 1000);
    return { id, method: 'METHOD_JWT', hashedToken: '', metadata, expiresAt: claims.exp! * 1_000_000, createdAt: issuedAt, updatedAt: issuedAt };
  }
}

/** A public key in PEM (SPKI, PKCS#1 RSA or an X.509 certificate) and the algorithms it may verify. */
export function readPublicKey(path: string): { key: KeyObject; algorithms: string[] } {
  const name = 'authentication.methods.jwt.public_key_file';
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${name}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(pem)) throw new Error(`${name}: ${path} holds a private key; give the issuer's public key (PEM "PUBLIC KEY")`);
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new Error(`${name}: ${path} is not a PEM public key (RSA, EC P-256/P-521 or Ed25519)`);
  }
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
      if ((details.modulusLength ?? 0) < 2048) throw new Error(`${name}: ${path} is an RSA key of ${details.modulusLength} bits; at least 2048 are needed`);
      return { key, algorithms: ['RS256', 'RS512'] };
    case 'ec':
      if (details.namedCurve === 'prime256v1') return { key, algorithms: ['ES256'] };
      if (details.namedCurve === 'secp521r1') return { key, algorithms: ['ES512'] };
      throw new Error(`${name}: ${path} is an EC key on ${details.namedCurve}; P-256 (ES256) or P-521 (ES512) are accepted`);
    case 'ed25519':
      return { key, algorithms: ['EdDSA'] };
    default:
      throw new Error(`${name}: ${path} is a ${key.asymmetricKeyType} key; RSA, EC (P-256, P-521) or Ed25519 are accepted`);
  }
}

/** Why a JWT was refused, in words that help its sender and give nothing away. */
function jwtRefusal(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'the JWT has expired';
  if (err instanceof errors.JWTClaimValidationFailed) return err.claim === 'nbf' ? 'the JWT is not valid yet' : `the JWT's "${err.claim}" claim is not the one expected`;
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the JWT\'s algorithm is not accepted';
  if (err instanceof errors.JWKSNoMatchingKey) return 'the JWT is signed by an unknown key';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'the JWT\'s signature does not verify';
  return 'the JWT is malformed';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

