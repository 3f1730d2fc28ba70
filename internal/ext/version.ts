/**
 * Document versions. Flipt reads them with semver's tolerant parser (`1.4`, `v1.4`, `1.4.0`
 * are the same), accepts only the versions it knows, and gates some fields on them.
 */

export interface Version {
  major: number;
  minor: number;
  patch: number;
  /** Pre-release or build text after the patch ("" when none): such a version is never supported. */
  extra: string;
}

/** Every version the format has had; the CLI accepts up to 1.4 (Flipt v1), Git storage up to 1.6. */
export const KNOWN_VERSIONS = ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6'] as const;

/** What export writes (Flipt v1.61). */
export const EXPORT_VERSION = '1.4';

/** A `major.minor` version our own code names ("1.4": a gate, the newest accepted); a document's goes through parseTolerant. */
export const knownVersion = (text: string): Version => {
  const [major, minor] = text.split('.').map(Number);
  return { major, minor, patch: 0, extra: '' };
};

/** `major.minor`, as Flipt prints versions in its messages. */
export const versionString = (version: Version): string => `${version.major}.${version.minor}`;

export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** Semver's ParseTolerant: trims, drops a leading "v", strips leading zeros, fills missing parts with 0. */
export function parseTolerant(input: string): Version {
  const text = input.trim().replace(/^v/, '');
  if (text === '') throw new Error('Version string empty');
  const parts = text.split('.');
  const head = parts.slice(0, 2);
  const tail = parts.slice(2).join('.');
  const cleaned = [...head, ...(parts.length > 2 ? [tail] : [])].map((p) => {
    if (p.length <= 1) return p;
    const trimmed = p.replace(/^0+/, '');
    return trimmed === '' || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
  });
  if (cleaned.length < 3 && /[+-]/.test(cleaned[cleaned.length - 1])) {
    throw new Error('Short version cannot contain PreRelease/Build meta data');
  }
  while (cleaned.length < 3) cleaned.push('0');
  const [majorText, minorText, rest] = cleaned;
  const patchMatch = /^([0-9]+)(.*)$/.exec(rest);
  const number = (value: string, what: string): number => {
    if (!/^[0-9]+$/.test(value)) throw new Error(`Invalid character(s) found in ${what} number ${JSON.stringify(value)}`);
    return Number(value);
  };
  const major = number(majorText, 'major');
  const minor = number(minorText, 'minor');
  if (!patchMatch) throw new Error(`Invalid character(s) found in patch number ${JSON.stringify(rest)}`);
  const extra = patchMatch[2];
  if (extra !== '' && !/^[-+]/.test(extra)) throw new Error(`Invalid character(s) found in patch number ${JSON.stringify(rest)}`);
  return { major, minor, patch: Number(patchMatch[1]), extra };
}

/** The versions accepted when `maxVersion` is the newest one. */
export function supportedVersions(maxVersion: string): Version[] {
  const max = knownVersion(maxVersion);
  return KNOWN_VERSIONS.map(knownVersion).filter((known) => compareVersions(known, max) <= 0);
}

export function isSupported(version: Version, maxVersion: string): boolean {
  return version.extra === '' && supportedVersions(maxVersion).some((known) => compareVersions(known, version) === 0);
}

/** Flipt's gate message when a field is newer than the document's version; null when allowed. */
export function gateError(field: string, needs: string, have: Version): string | null {
  const expected = knownVersion(needs);
  if (compareVersions(have, expected) >= 0) return null;
  return `${field} is supported in version >=${versionString(expected)}, found ${versionString(have)}`;
}

/** Fields and the version they need (the importer's gates; `schemaOnly` ones are enforced by Flipt's CUE schema). */
export const GATES = {
  flagType: { field: 'flag.type', needs: '1.1' },
  flagRollouts: { field: 'flag.rollouts', needs: '1.1' },
  rolloutSegmentKeys: { field: 'flag.rollouts[*].segment.keys', needs: '1.2' },
  variantDefault: { field: 'variant.default', needs: '1.3' },
  flagMetadata: { field: 'flag.metadata', needs: '1.3', schemaOnly: true },
  constraintValueList: { field: 'segment.constraints[*].value (as a list)', needs: '1.6' },
} as const;
