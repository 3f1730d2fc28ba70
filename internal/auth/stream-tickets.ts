import { createHmac } from 'node:crypto';
import { unauthenticated, type Authentication } from '../core';
import { sameHash } from './tokens';

/**
 * A stream ticket: what an SSE URL carries instead of an Authorization header, which a browser's
 * EventSource cannot send. `<authentication id>.<expiry, unix seconds>.<mac>`, the MAC an
 * HMAC-SHA256 of the id, expiry and namespace keyed by the token's stored hash: any instance
 * sharing the database can check it (no secret to configure), only a holder of the token could
 * have been given it, it names one namespace, and it dies with its token (deleted or expired).
 */

export function issueStreamTicket(auth: Pick<Authentication, 'id' | 'hashedToken' | 'expiresAt'>, ns: string, nowMs: number, lifetimeMs: number): string {
  let expires = Math.floor((nowMs + lifetimeMs) / 1000);
  if (auth.expiresAt !== null) expires = Math.min(expires, Math.floor(auth.expiresAt / 1_000_000));
  return `${auth.id}.${expires}.${mac(auth.hashedToken, auth.id, expires, ns)}`;
}

/** The authentication a ticket was issued to, for `ns`; an Unauthenticated error otherwise. */
export async function checkStreamTicket(
  ticket: string,
  ns: string,
  nowMs: number,
  lookup: (id: string) => Promise<Authentication | null>,
): Promise<Authentication> {
  const [id, expiresText, given, extra] = ticket.split('.');
  if (extra !== undefined || !id || !given || !/^\d{1,12}$/.test(expiresText ?? '')) throw unauthenticated();
  const expires = Number(expiresText);
  if (expires * 1000 <= nowMs) throw unauthenticated();
  const auth = await lookup(id);
  if (!auth || (auth.expiresAt !== null && auth.expiresAt <= nowMs * 1000)) throw unauthenticated();
  if (!sameHash(mac(auth.hashedToken, id, expires, ns), given)) throw unauthenticated();
  return auth;
}

function mac(key: string, id: string, expires: number, ns: string): string {
  return createHmac('sha256', key).update(`${id}.${expires}.${ns}`).digest('base64url');
}
