import { sign, verify, type KeyObject } from 'node:crypto';

/**
 * The licence's compact text form: base64url(JSON payload) "." base64url(Ed25519 signature).
 * The signature covers the payload's base64url text exactly as written (as JWS does), so
 * nothing depends on how the JSON was serialised, and the text survives copy and paste into
 * YAML or an environment variable.
 */

/** What a licence says, once its signature has verified. */
export interface License {
  /** The issuer's identifier for this licence, if it gave one. */
  id?: string;
  customer: string;
  /** Feature names, e.g. "webhook"; names this build does not know are kept and ignored. */
  features: string[];
  issuedAt?: Date;
  expiresAt: Date;
}

/** The payload as signed: snake_case JSON, `v` 1. */
export interface LicensePayload {
  v: 1;
  id?: string;
  customer: string;
  features: string[];
  issued_at?: string;
  expires_at: string;
}

export type DecodeResult = { ok: true; license: License } | { ok: false; problem: 'format' | 'signature'; reason: string };

/** Longer than any real licence by far; a bound so that a wrong file (a binary, a log) is refused quickly. */
const MAX_TEXT = 16 * 1024;
const B64URL = /^[A-Za-z0-9_-]+$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** Signs a payload with the issuer's private key (the issue script and the tests do this). */
export function encodeLicense(payload: LicensePayload, privateKey: KeyObject): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  const signature = sign(null, Buffer.from(body, 'ascii'), privateKey).toString('base64url');
  return `${body}.${signature}`;
}

/**
 * Verifies a licence text against the issuer key and reads its payload. The signature is
 * checked before the payload is read, so a changed payload is reported as a bad signature
 * rather than as whatever the change broke. Expiry is not judged here (see loadLicense).
 */
export function decodeLicense(text: string, issuer: KeyObject): DecodeResult {
  // Whitespace anywhere is dropped: a licence wrapped over lines in a file, or pasted with a
  // trailing newline into a YAML block, is still the same licence.
  const compact = text.replace(/\s+/g, '');
  if (compact.length > MAX_TEXT) return format(`it is ${compact.length} characters long; a licence is under ${MAX_TEXT}`);
  const parts = compact.split('.');
  if (parts.length !== 2 || !B64URL.test(parts[0]) || !B64URL.test(parts[1])) {
    return format('expected two base64url parts joined by "." (payload.signature)');
  }
  const [body, sig] = parts;
  const signature = Buffer.from(sig, 'base64url');
  if (signature.length !== 64) return format(`the signature part is ${signature.length} bytes; an Ed25519 signature is 64 (was the text cut short?)`);
  if (!verify(null, Buffer.from(body, 'ascii'), issuer, signature)) {
    return {
      ok: false,
      problem: 'signature',
      reason: 'the signature does not verify against this build\'s issuer key: the licence was altered, forged, or issued for another build',
    };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return format('the payload is not JSON');
  }
  return readPayload(payload);
}

function readPayload(payload: unknown): DecodeResult {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return format('the payload is not a JSON object');
  const p = payload as Record<string, unknown>;
  if (p.v !== 1) return format(`payload version ${JSON.stringify(p.v)} is not one this build reads (1)`);
  if (typeof p.customer !== 'string' || p.customer.trim() === '') return format('the payload has no customer');
  if (!Array.isArray(p.features) || !p.features.every((f) => typeof f === 'string')) return format('the payload\'s features are not a list of names');
  if (p.id !== undefined && typeof p.id !== 'string') return format('the payload\'s id is not a string');
  const expiresAt = rfc3339(p.expires_at);
  if (!expiresAt) return format('the payload\'s expires_at is not an RFC 3339 date-time');
  let issuedAt: Date | undefined;
  if (p.issued_at !== undefined) {
    issuedAt = rfc3339(p.issued_at);
    if (!issuedAt) return format('the payload\'s issued_at is not an RFC 3339 date-time');
  }
  const license: License = { customer: p.customer, features: [...(p.features as string[])], expiresAt };
  if (p.id !== undefined) license.id = p.id as string;
  if (issuedAt) license.issuedAt = issuedAt;
  return { ok: true, license };
}

/** A full RFC 3339 date-time with an offset; impossible dates (Feb 30) are refused, not rolled over. */
export function rfc3339(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 60) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

function format(reason: string): DecodeResult {
  return { ok: false, problem: 'format', reason: `the licence is malformed: ${reason}` };
}
