import { sql as rawSql } from 'kysely';
import type { Tx, WriteScope } from '../transaction';

/**
 * Every write's first statement: moves the namespace's revision on and records the change.
 * Being first, on databases with row locks it also serialises every write to one namespace,
 * so ranks and uniqueness checks cannot interleave. False when there is no such namespace.
 */
export async function bumpRevision(tx: Tx, scope: WriteScope): Promise<boolean> {
  const result = await tx.db
    .updateTable('namespaces')
    .set({ revision: rawSql`revision + 1` })
    .where('key', '=', scope.ns)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    tx.changes.wrote(scope, null);
    return false;
  }
  const row = await tx.db.selectFrom('namespaces').select(['revision', 'created_at']).where('key', '=', scope.ns).executeTakeFirstOrThrow();
  tx.changes.wrote(scope, { before: `${row.created_at}:${Number(row.revision) - 1}`, after: `${row.created_at}:${row.revision}` });
  return true;
}

/** A token that changes on every write in the namespace (see bumpRevision); null when it does not exist. */
export async function revisionOf(tx: Tx, ns: string): Promise<string | null> {
  const row = await tx.db.selectFrom('namespaces').select(['revision', 'created_at']).where('key', '=', ns).executeTakeFirst();
  // created_at tells a re-created namespace from the one that was deleted.
  return row ? `${row.created_at}:${row.revision}` : null;
}
