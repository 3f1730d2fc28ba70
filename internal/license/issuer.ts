import { createPublicKey, type KeyObject } from 'node:crypto';

/**
 * The issuer's Ed25519 public key, as the 32 raw bytes in base64url (a JWK's `x`), replaced at
 * build time by esbuild (`define`, from PENNON_LICENSE_ISSUER_KEY; esbuild.config.mjs). A
 * release build carries the vendor's key; any other build (from source, tests, a bundle built
 * without the variable) falls back to the test issuer below, whose private half is committed
 * in test/fixtures/license/ — so anyone can issue licences for such a build, by design.
 */
declare const __PENNON_LICENSE_ISSUER__: string | undefined;

/** The test issuer (test/fixtures/license/issuer-test.pub); never the key of a release. */
export const TEST_ISSUER_KEY = '_U7FrQB5IF4bCoF0f2izCBMR3KcsvIBgasglhuVO9Q4';

const defined = typeof __PENNON_LICENSE_ISSUER__ === 'string' ? __PENNON_LICENSE_ISSUER__.trim() : '';

/** The key this build verifies licences against (base64url, 32 bytes). */
export const ISSUER_KEY: string = defined !== '' ? defined : TEST_ISSUER_KEY;

/**
 * True when this build verifies against the test issuer: start-up should say so, because a
 * licence that verifies here proves nothing about a customer.
 */
export const USING_TEST_ISSUER: boolean = ISSUER_KEY === TEST_ISSUER_KEY;

/** An Ed25519 public key from its 32 raw bytes in base64url; throws on anything else. */
export function issuerKeyObject(raw: string): KeyObject {
  if (!/^[A-Za-z0-9_-]{43}$/.test(raw) || Buffer.from(raw, 'base64url').length !== 32) {
    throw new Error('licence issuer key must be 32 bytes of Ed25519 public key in base64url (43 characters)');
  }
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw }, format: 'jwk' });
}

let cached: KeyObject | undefined;

/** The build's issuer key as a KeyObject, made once. */
export function issuerKey(): KeyObject {
  cached ??= issuerKeyObject(ISSUER_KEY);
  return cached;
}
