import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DeliveryHeaders, HeaderReader } from './types';

/**
 * Authentication primitives shared by the providers. Every comparison of a secret-derived
 * value runs in constant time over equal-length buffers, so neither the content nor the length
 * of what the caller sent leaks through timing.
 */

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** A case-insensitive reader. A header sent twice is treated as absent: which copy is meant is a guess. */
export function headerReader(headers: DeliveryHeaders): HeaderReader {
  const lower = new Map<string, string | readonly string[] | undefined>();
  for (const [name, value] of Object.entries(headers)) lower.set(name.toLowerCase(), value);
  return (name) => {
    const value = lower.get(name.toLowerCase());
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.length === 1) return value[0];
    return undefined;
  };
}

/** True when `hex` (64 hex digits, any case) is HMAC-SHA256(secret, bytes). */
export function hmacMatches(secret: string, bytes: Uint8Array, hex: string): boolean {
  if (!HEX64.test(hex)) return false;
  const expected = createHmac('sha256', secret).update(bytes).digest();
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'));
}

/**
 * Why a `sha256=<hex>` signature header (GitHub's X-Hub-Signature-256, Bitbucket's
 * X-Hub-Signature) does not authenticate `bytes`, or undefined when it does.
 */
export function prefixedSignatureProblem(header: string, value: string | undefined, secret: string, bytes: Uint8Array): string | undefined {
  if (value === undefined) return `no ${header} header`;
  const m = /^sha256=(.*)$/.exec(value.trim());
  if (!m) return `${header} is not "sha256=<hex>"`;
  if (!HEX64.test(m[1])) return `${header} is not "sha256=" and 64 hex digits`;
  return hmacMatches(secret, bytes, m[1]) ? undefined : `${header} does not match the body signed with this environment's webhook secret`;
}

// Plain secrets (GitLab's token, Azure's password) are compared through an HMAC under a key
// made at start: both sides become 32 bytes whatever their length, and timingSafeEqual then
// reveals nothing, not even whether the lengths differ.
const COMPARE_KEY = randomBytes(32);

/** Constant-time equality of a presented secret and the configured one. */
export function secretMatches(secret: string, presented: string): boolean {
  const a = createHmac('sha256', COMPARE_KEY).update(secret, 'utf8').digest();
  const b = createHmac('sha256', COMPARE_KEY).update(presented, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * The password of an `Authorization: Basic base64(user:password)` header, or why there is
 * none. The user name is free-form (Azure DevOps sends whatever the hook was given).
 */
export function basicPassword(authorization: string | undefined): { password: string } | { problem: string } {
  if (authorization === undefined) return { problem: 'no Authorization header' };
  const m = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(authorization);
  if (!m) return { problem: 'the Authorization header is not HTTP Basic' };
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { problem: 'the Basic credentials have no ":" between user and password' };
  return { password: decoded.slice(colon + 1) };
}
