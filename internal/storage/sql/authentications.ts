import { AUTH_METHODS, newId, type Authentication, type AuthMethod } from '../../core';
import type { AuthenticationInput } from '../types';
import type { SqlContext } from './context';
import { int, type AuthenticationsTable } from './tables';

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

export async function createAuthentication(sql: SqlContext, input: AuthenticationInput): Promise<Authentication> {
  const now = sql.clock.nowMicros();
  const row: AuthenticationsTable = {
    id: newId(),
    method: methodNumber(input.method),
    hashed_client_token: input.hashedToken,
    metadata: JSON.stringify(input.metadata),
    expires_at: input.expiresAt,
    created_at: now,
    updated_at: now,
  };
  await sql.db.insertInto('authentications').values(row).execute();
  return toAuthentication(row);
}

export async function getAuthentication(sql: SqlContext, id: string): Promise<Authentication | null> {
  const row = await sql.db.selectFrom('authentications').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toAuthentication(row) : null;
}

export async function getAuthenticationByHash(sql: SqlContext, hashedToken: string): Promise<Authentication | null> {
  const row = await sql.db.selectFrom('authentications').selectAll().where('hashed_client_token', '=', hashedToken).executeTakeFirst();
  return row ? toAuthentication(row) : null;
}

export async function listAuthentications(
  sql: SqlContext,
  method: AuthMethod | null,
  limit: number,
  offset: number,
): Promise<{ items: Authentication[]; more: boolean }> {
  let query = sql.db.selectFrom('authentications').selectAll();
  if (method !== null) query = query.where('method', '=', methodNumber(method));
  const rows = await query.orderBy('created_at').orderBy('id').limit(limit + 1).offset(offset).execute();
  return { items: rows.slice(0, limit).map(toAuthentication), more: rows.length > limit };
}

export async function countAuthentications(sql: SqlContext, method: AuthMethod): Promise<number> {
  const { count } = await sql.db
    .selectFrom('authentications')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('method', '=', methodNumber(method))
    .executeTakeFirstOrThrow();
  return Number(count);
}

export async function deleteAuthentication(sql: SqlContext, id: string): Promise<void> {
  await sql.db.deleteFrom('authentications').where('id', '=', id).execute();
}

export async function expireAuthentication(sql: SqlContext, id: string, at: number): Promise<void> {
  await sql.db.updateTable('authentications').set({ expires_at: at, updated_at: sql.clock.nowMicros() }).where('id', '=', id).execute();
}

export async function deleteExpiredAuthentications(sql: SqlContext, method: AuthMethod, before: number): Promise<number> {
  const result = await sql.db
    .deleteFrom('authentications')
    .where('method', '=', methodNumber(method))
    .where('expires_at', 'is not', null)
    .where('expires_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
