import { createRemoteJWKSet, customFetch, errors, type FetchImplementation, type JWTVerifyGetKey } from 'jose';
import { unavailable } from '../core';

/**
 * An issuer's JSON Web Key Set at a URL (a JWT issuer's `jwks_url`, a Kubernetes cluster's
 * `jwks_uri`), through jose's remote set, with what a server needs around it:
 *
 * - fetched on first use, kept, and refreshed in the background every REFRESH_MS while the keys
 *   held keep verifying — so an issuer outage does not stop tokens it signed before;
 * - a token naming a key (kid) the set does not hold fetches the set again (at most once per
 *   COOLDOWN_MS, jose's cooldown): a key added by rotation is picked up at its first token, and
 *   a key removed is refused from that fetch on (or the next refresh);
 * - each fetch is bounded (FETCH_TIMEOUT_MS);
 * - a set that cannot be fetched is an outage (`unavailable`: 503 / UNAVAILABLE, the URL named),
 *   never the token's fault; a key that is not in a fetched set is (jose's JWKSNoMatchingKey).
 */

export const FETCH_TIMEOUT_MS = 5000;
/** How soon an unknown kid may fetch the set again: a guessed kid costs the issuer one request a second at most. */
export const COOLDOWN_MS = 1000;
/** How old the keys held may get before a background refresh. */
export const REFRESH_MS = 10 * 60 * 1000;

export interface RemoteKeysOptions {
  /** What the keys are for, in messages: `authentication.methods.jwt.jwks_url`. */
  name: string;
  /** A fetch of one's own (the Kubernetes client: the cluster's CA and the pod's bearer token). */
  fetch?: FetchImplementation;
  /** A background refresh failed (the keys held go on verifying). */
  warn?: (message: string, err: unknown) => void;
}

export interface RemoteKeys {
  getKey: JWTVerifyGetKey;
}

export function remoteKeys(url: URL, options: RemoteKeysOptions): RemoteKeys {
  const set = createRemoteJWKSet(url, {
    timeoutDuration: FETCH_TIMEOUT_MS,
    cooldownDuration: COOLDOWN_MS,
    // Never stale for jose: refreshed in the background below, the held keys serving meanwhile.
    cacheMaxAge: Infinity,
    ...(options.fetch && { [customFetch]: options.fetch }),
  });
  let fetchedAt = 0;
  let refreshing = false;
  const refreshIfOld = () => {
    if (refreshing || set.reloading || Date.now() - fetchedAt < REFRESH_MS) return;
    refreshing = true;
    set.reload().then(
      () => {
        fetchedAt = Date.now();
        refreshing = false;
      },
      (err: unknown) => {
        // Tried again at the next token once a cooldown has passed, not at every token.
        fetchedAt = Date.now() - REFRESH_MS + COOLDOWN_MS * 30;
        refreshing = false;
        options.warn?.(`${options.name}: refreshing the keys from ${url.href} failed; the keys held go on verifying`, err);
      },
    );
  };
  const getKey: JWTVerifyGetKey = async (header, token) => {
    try {
      const key = await set(header, token);
      if (fetchedAt === 0) fetchedAt = Date.now();
      else refreshIfOld();
      return key;
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) throw err;
      throw unavailable(`${options.name}: the keys at ${url.href} cannot be fetched (${describe(err)})`, err);
    }
  };
  return { getKey };
}

function describe(err: unknown): string {
  if (err instanceof errors.JWKSTimeout) return `no answer within ${FETCH_TIMEOUT_MS / 1000} s`;
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return err instanceof Error ? err.message : String(err);
}
