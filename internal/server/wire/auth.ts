import { invalidField, parseGoDateTime, type Authentication } from '../../core';
import { timestamp } from './encode';

/** Authentications on the wire: Flipt's `Authentication` message (expiresAt omitted when unset). */
export function authenticationJson(a: Authentication) {
  return {
    id: a.id,
    method: a.method,
    ...(a.expiresAt !== null && { expiresAt: timestamp(a.expiresAt) }),
    createdAt: timestamp(a.createdAt),
    updatedAt: timestamp(a.updatedAt),
    metadata: a.metadata,
  };
}

/** An RFC 3339 instant (a protobuf Timestamp in JSON) → epoch microseconds; "" → null. */
export function instantOf(value: string, field: string): number | null {
  if (value === '') return null;
  const t = parseGoDateTime(value);
  if (!t || t.dateOnly) throw invalidField(field, `"${value}" is not an RFC 3339 timestamp (example: 2030-01-02T15:04:05Z)`);
  return t.seconds * 1_000_000 + Math.floor(t.nanos / 1000);
}
