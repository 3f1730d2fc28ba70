/**
 * Pennon's own metadata keys for identities that sign in other than by a token (OIDC, GitHub,
 * JWT, Kubernetes), and the claims they carry, bounded: what the role resolver
 * (internal/auth/roles.ts) reads to match `authorization.roles`.
 */

export const PENNON_METADATA = {
  /** The subject of a JWT or Kubernetes identity (`sub`; a service account's `system:serviceaccount:<ns>:<name>`). */
  sub: 'io.pennon.auth.sub',
  /** JSON array of strings: the identity's groups (OIDC: the claim `authorization.groups_claim` names). */
  groups: 'io.pennon.auth.groups',
  /** JSON object: the identity's claims, at most CLAIMS_LIMIT bytes. */
  claims: 'io.pennon.auth.claims',
  /** JSON array of "org" and "org/team" (team slug) a GitHub user belongs to, as far as they were read. */
  github: 'io.pennon.auth.github',
} as const;

/** The claims kept in `io.pennon.auth.claims`, in bytes of JSON. */
export const CLAIMS_LIMIT = 8 * 1024;

/** Protocol values an ID token carries that say nothing about who signed in. */
const PROTOCOL_CLAIMS = new Set(['nonce', 'at_hash', 'c_hash', 's_hash']);

/**
 * The claims as one JSON object of at most `limit` bytes: past it, the largest values are dropped
 * first (a long list of groups goes before `email`), so the identifying claims stay.
 */
export function boundedClaims(claims: Record<string, unknown>, limit = CLAIMS_LIMIT): string {
  const kept: Record<string, unknown> = {};
  const sizes: [string, number][] = [];
  for (const [name, value] of Object.entries(claims)) {
    if (PROTOCOL_CLAIMS.has(name) || value === undefined) continue;
    kept[name] = value;
    sizes.push([name, Buffer.byteLength(JSON.stringify({ [name]: value }))]);
  }
  let text = JSON.stringify(kept);
  sizes.sort((a, b) => b[1] - a[1]);
  for (const [name] of sizes) {
    if (Buffer.byteLength(text) <= limit) break;
    delete kept[name];
    text = JSON.stringify(kept);
  }
  return text;
}

/** A claim read as a list of strings: an array's strings, or a single string as a list of one. */
export function stringList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
