import { AUTH_METHODS, newId, type Authentication, type AuthMethod } from '../../../core';
import type { AuthenticationInput } from '../../types';
import { int, type AuthenticationsTable } from '../tables';
import type { Tx } from '../transaction';
import { read, write } from './kinds';

/** Authentications (API client tokens): stored by the hash of their token only. */

const methodNumber = (m: AuthMethod) => AUTH_METHODS.indexOf(m);

function toAuthentication(r: AuthenticationsTable): Authentication {
  return {
    id: r.id,
    method: AUTH_METHODS[Number(r.method)] ?? 'METHOD_NONE',
    hashedToken: r.hashed_client_token,
    metadata: JSON.parse(r.metadata) as Record<string, string>,
    expiresAt: r.expires_at === null ? null : int(r.expires_at),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

export const createAuthentication = write(async function createAuthentication(tx: Tx, input: AuthenticationInput): Promise<Authentication> {
  const now = tx.clock.nowMicros();
  const row: AuthenticationsTable = {
    id: newId(),
    method: methodNumber(input.method),
    hashed_client_token: input.hashedToken,
    metadata: JSON.stringify(input.metadata),
    expires_at: input.expiresAt,
    created_at: now,
    updated_at: now,
  };
  await tx.db.insertInto('authentications').values(row).execute();
  return toAuthentication(row);
});

export const getAuthentication = read(async function getAuthentication(tx: Tx, id: string): Promise<Authentication | null> {
  const row = await tx.db.selectFrom('authentications').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toAuthentication(row) : null;
});

export const getAuthenticationByHash = read(async function getAuthenticationByHash(tx: Tx, hashedToken: string): Promise<Authentication | null> {
  const row = await tx.db.selectFrom('authentications').selectAll().where('hashed_client_token', '=', hashedToken).executeTakeFirst();
  return row ? toAuthentication(row) : null;
});

export const listAuthentications = read(async function listAuthentications(
  tx: Tx,
  method: AuthMethod | null,
  limit: number,
  offset: number,
): Promise<{ items: Authentication[]; more: boolean }> {
  let query = tx.db.selectFrom('authentications').selectAll();
  if (method !== null) query = query.where('method', '=', methodNumber(method));
  const rows = await query.orderBy('created_at').orderBy('id').limit(limit + 1).offset(offset).execute();
  return { items: rows.slice(0, limit).map(toAuthentication), more: rows.length > limit };
});

export const countAuthentications = read(async function countAuthentications(tx: Tx, method: AuthMethod): Promise<number> {
  const { count } = await tx.db
    .selectFrom('authentications')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('method', '=', methodNumber(method))
    .executeTakeFirstOrThrow();
  return Number(count);
});

export const deleteAuthentication = write(async function deleteAuthentication(tx: Tx, id: string): Promise<void> {
  await tx.db.deleteFrom('authentications').where('id', '=', id).execute();
});

export const expireAuthentication = write(async function expireAuthentication(tx: Tx, id: string, at: number): Promise<void> {
  await tx.db.updateTable('authentications').set({ expires_at: at, updated_at: tx.clock.nowMicros() }).where('id', '=', id).execute();
});

export const deleteExpiredAuthentications = write(async function deleteExpiredAuthentications(tx: Tx, method: AuthMethod, before: number, limit: number): Promise<number> {
  // The rows first: PostgreSQL has no DELETE ... LIMIT, and MySQL no LIMIT in an IN subquery;
  // and the audit trail records each token deleted, as it was.
  const expired = await tx.db
    .selectFrom('authentications')
    .selectAll()
    .where('method', '=', methodNumber(method))
    .where('expires_at', 'is not', null)
    .where('expires_at', '<', before)
    .limit(limit)
    .execute();
  if (expired.length === 0) return 0;
  const result = await tx.db
    .deleteFrom('authentications')
    .where('id', 'in', expired.map((r) => r.id))
    .executeTakeFirst();
  for (const row of expired) tx.audit.tokenDeleted(toAuthentication(row));
  return Number(result.numDeletedRows);
});
