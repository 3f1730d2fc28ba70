import { randomBytes } from 'node:crypto';
import { unauthenticated } from '../core';
import { sameHash } from './tokens';

/**
 * One sign-in's secrets, from the authorize step to the callback: the `state` sent to the
 * provider (and back), the OIDC `nonce` the ID token must carry, and the PKCE code verifier. They
 * travel in the browser's `flipt_client_state` cookie (HttpOnly, short-lived), not in this
 * process: any instance behind a load balancer can finish a sign-in another one started. The
 * cookie needs no signature: it is only ever compared with what the provider sends back (state),
 * or with what the provider signed (nonce) or will check (verifier); a browser that edits its own
 * cookie only breaks its own sign-in.
 */
export interface SignInState {
  /** `oidc:<provider>` or `github`: a callback finishes only the sign-in its method started. */
  method: string;
  state: string;
  nonce: string;
  /** The PKCE code verifier, when the provider uses PKCE. */
  verifier: string | null;
}

/** The `method` of a GitHub sign-in, and of one with the OIDC provider `provider`. */
export const GITHUB_METHOD = 'github';
export const oidcMethodOf = (provider: string) => `oidc:${provider}`;

const random = () => randomBytes(32).toString('base64url');

export function newSignInState(method: string, options: { pkce: boolean }): SignInState {
  return { method, state: random(), nonce: random(), verifier: options.pkce ? random() : null };
}

export function encodeSignInState(state: SignInState): string {
  return Buffer.from(JSON.stringify([state.method, state.state, state.nonce, state.verifier])).toString('base64url');
}

function decode(text: string): SignInState | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 4) return null;
    const [method, state, nonce, verifier] = value as unknown[];
    if (typeof method !== 'string' || typeof state !== 'string' || typeof nonce !== 'string') return null;
    if (verifier !== null && typeof verifier !== 'string') return null;
    return { method, state, nonce, verifier };
  } catch {
    return null;
  }
}

/**
 * The sign-in a callback finishes: the cookie's, if the `state` the provider sent back is the
 * one this browser was given for this method. Refused (401, as Flipt) otherwise, saying why.
 */
export function checkSignInState(cookie: string | undefined, given: string | undefined, method: string): SignInState {
  if (given === undefined || given === '') throw unauthenticated('missing state parameter');
  if (cookie === undefined || cookie === '') {
    throw unauthenticated('missing state cookie flipt_client_state: the sign-in was started in another browser, or too long ago (authentication.session.state_lifetime); sign in again');
  }
  const started = decode(cookie);
  if (!started || started.method !== method || !sameHash(started.state, given)) {
    throw unauthenticated('unexpected state parameter: it does not match the sign-in this browser started (flipt_client_state); sign in again');
  }
  return started;
}
