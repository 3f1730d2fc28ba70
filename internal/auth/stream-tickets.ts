import { createHmac } from 'node:crypto';
import { unauthenticated, type Authentication } from '../core';
import { sameHash } from './tokens';

/**
 * A stream ticket: what an SSE URL carries instead of an Authorization header, which a browser's
 * EventSource cannot send. `<authentication id>.<mac>`, the MAC an HMAC-SHA256 of the id and the
 * namespace keyed by the token's stored hash: any instance sharing the database can check it (no
 * secret to configure), only a holder of the token could have been given it, it names one
 * namespace, and it lives exactly as long as its token (deleted or expired, it is refused).
 * It is the same for the same token and namespace, so the URL a client caches (a bulk answer's
 * `eventStreams`, kept across 304s) never goes stale while the token stands.
 */

export function issueStreamTicket(auth: Pick<Authentication, 'id' | 'hashedToken'>, ns: string): string {
  return `${auth.id}.${mac(auth.hashedToken, auth.id, ns)}`;
}

/** The authentication a ticket was issued to, for `ns`; an Unauthenticated error otherwise. */
export async function checkStreamTicket(
  ticket: string,
  ns: string,
  nowMicros: number,
  lookup: (id: string) => Promise<Authentication | null>,
): Promise<Authentication> {
  const [id, given, extra] = ticket.split('.');
  if (extra !== undefined || !id || !given || id.length > 64) throw unauthenticated();
  const auth = await lookup(id);
  if (!auth || (auth.expiresAt !== null && auth.expiresAt <= nowMicros)) throw unauthenticated();
  if (!sameHash(mac(auth.hashedToken, id, ns), given)) throw unauthenticated();
  return auth;
}

function mac(key: string, id: string, ns: string): string {
  return createHmac('sha256', key).update(`${id}\u0000${ns}`).digest('base64url');
}
