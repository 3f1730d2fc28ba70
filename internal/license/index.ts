import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeLicense, type License } from './format';
import { issuerKey } from './issuer';

/**
 * The licence gate. A licence is an Ed25519-signed document (customer, features, expiry),
 * verified offline against the issuer key compiled into the build (issuer.ts). Nothing here
 * throws or calls out: whatever is wrong becomes a state and a sentence for the operator's
 * warning, and the service starts either way — only licensed features stay off.
 */

export type { License, LicensePayload } from './format';
export { encodeLicense } from './format';
export { ISSUER_KEY, TEST_ISSUER_KEY, USING_TEST_ISSUER, issuerKeyObject } from './issuer';

/** Licensed feature names this build knows. */
export type Feature = 'webhook';

export type LicenseState = 'none' | 'valid' | 'expired' | 'invalid';

/** Which part is wrong, for tests and for a log field; `reason` says it in words. */
export type LicenseProblem = 'config' | 'file' | 'format' | 'signature' | 'expiry';

export interface LicenseResult {
  state: LicenseState;
  /** Present when the signature verified (valid or expired). */
  license?: License;
  /** One sentence for the operator: what was found, or what is wrong and where. */
  reason: string;
  problem?: LicenseProblem;
  /** Where the licence text came from. */
  source?: 'license.key' | 'license.file';
}

/** `license.key` (the text itself) or `license.file` (a path to a file holding it). */
export interface LicenseSource {
  key?: string;
  file?: string;
}

/**
 * Reads and verifies the configured licence as of `now`. Exactly one of key and file may be
 * set: with both, which one is meant is a guess, and a guess about a licence is a support call
 * later, so it is refused with a reason instead. (Flipt's `file` needs `key` to decrypt it; ours
 * is not encrypted, so a Flipt configuration that sets both gets this clear message.)
 */
export function loadLicense(source: LicenseSource, now: Date = new Date(), issuer: KeyObject = issuerKey()): LicenseResult {
  const key = source.key?.trim() ?? '';
  const file = source.file?.trim() ?? '';
  if (key === '' && file === '') {
    return { state: 'none', reason: 'no licence configured (license.key and license.file are empty)' };
  }
  if (key !== '' && file !== '') {
    return { state: 'invalid', problem: 'config', reason: 'license.key and license.file are both set; set one of them (the file holds the same text as the key)' };
  }

  let text = key;
  const where = key !== '' ? 'license.key' : 'license.file';
  if (file !== '') {
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      return { state: 'invalid', problem: 'file', source: where, reason: `license.file ${file} cannot be read: ${fileError(err)}` };
    }
    if (text.trim() === '') return { state: 'invalid', problem: 'file', source: where, reason: `license.file ${file} is empty` };
  }

  const decoded = decodeLicense(text, issuer);
  const from = file !== '' ? `license.file ${file}` : 'license.key';
  if (!decoded.ok) return { state: 'invalid', problem: decoded.problem, source: where, reason: `${from}: ${decoded.reason}` };

  const license = decoded.license;
  const who = describe(license);
  if (now.getTime() >= license.expiresAt.getTime()) {
    return { state: 'expired', license, problem: 'expiry', source: where, reason: `${from}: the licence ${who} expired at ${license.expiresAt.toISOString()}` };
  }
  const features = license.features.length > 0 ? license.features.join(', ') : 'none';
  return { state: 'valid', license, source: where, reason: `licence ${who} valid until ${license.expiresAt.toISOString()}; features: ${features}` };
}

/**
 * True when the licence is valid and grants the feature. With `now`, expiry is judged again
 * at that moment (a long-running process may outlive its licence); without it, as loaded.
 */
export function hasFeature(result: LicenseResult, feature: Feature, now?: Date): boolean {
  if (result.state !== 'valid' || !result.license) return false;
  if (now && now.getTime() >= result.license.expiresAt.getTime()) return false;
  return result.license.features.includes(feature);
}

/**
 * Whether a feature is on, and the sentence to log at start when it is not (the issue asks for
 * a warning that says why: none, expired, forged, or a licence without that feature).
 */
export function featureStatus(result: LicenseResult, feature: Feature, now?: Date): { enabled: boolean; reason: string } {
  if (hasFeature(result, feature, now)) return { enabled: true, reason: `${feature}: enabled by the ${result.reason}` };
  const off = `${feature} is disabled (it needs a licence that includes "${feature}")`;
  if (result.state === 'valid' && result.license) {
    if (now && now.getTime() >= result.license.expiresAt.getTime()) {
      return { enabled: false, reason: `${off}: the licence ${describe(result.license)} expired at ${result.license.expiresAt.toISOString()}` };
    }
    return { enabled: false, reason: `${off}: the licence ${describe(result.license)} does not include it (features: ${result.license.features.join(', ') || 'none'})` };
  }
  return { enabled: false, reason: `${off}: ${result.reason}` };
}

function describe(license: License): string {
  return license.id ? `of ${JSON.stringify(license.customer)} (${license.id})` : `of ${JSON.stringify(license.customer)}`;
}

function fileError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return err instanceof Error ? err.message : String(err);
}
