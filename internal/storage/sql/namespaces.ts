import { invalid, notFound, type Namespace, type Page } from '../../core';
import type { ListParams, NamespaceInput } from '../types';
import { paged, pageOf, type SqlContext } from './context';
import { toNamespace } from './tables';

export async function getNamespace(sql: SqlContext, key: string): Promise<Namespace> {
  const row = await sql.db.selectFrom('namespaces').selectAll().where('key', '=', key).executeTakeFirst();
  if (!row) throw notFound(`namespace "${key}" not found`);
  return toNamespace(row);
}

export async function listNamespaces(sql: SqlContext, params: ListParams): Promise<Page<Namespace>> {
  const rows = await paged(sql.db.selectFrom('namespaces').selectAll().orderBy('created_at').orderBy('key'), params).execute();
  const { count } = await sql.db
    .selectFrom('namespaces')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  const page = pageOf(rows, params, (r) => r.key);
  return { items: page.items.map(toNamespace), total: Number(count), next: page.next };
}

export async function getRevision(sql: SqlContext, key: string): Promise<string | null> {
  const row = await sql.db
    .selectFrom('namespaces')
    .select(['revision', 'created_at'])
    .where('key', '=', key)
    .executeTakeFirst();
  // created_at tells a re-created namespace from the one that was deleted.
  return row ? `${row.created_at}:${row.revision}` : null;
}

export async function createNamespace(sql: SqlContext, input: NamespaceInput): Promise<Namespace> {
  const now = sql.clock.nowMicros();
  try {
    await sql.db
      .insertInto('namespaces')
      .values({ key: input.key, name: input.name, description: input.description, protected: 0, revision: 1, created_at: now, updated_at: now })
      .execute();
  } catch (err) {
    if (sql.dialect.isUniqueViolation(err)) throw invalid(`namespace "${input.key}" is not unique`);
    throw err;
  }
  const created = await sql.db.selectFrom('namespaces').select('created_at').where('key', '=', input.key).executeTakeFirstOrThrow();
  sql.created(input.key, `${created.created_at}:1`);
  return getNamespace(sql, input.key);
}

export async function updateNamespace(sql: SqlContext, input: NamespaceInput): Promise<Namespace> {
  return sql.write({ ns: input.key }, async (tx, exists) => {
    if (!exists) throw notFound(`namespace "${input.key}" not found`);
    await tx.db
      .updateTable('namespaces')
      .set({ name: input.name, description: input.description, updated_at: tx.clock.nowMicros() })
      .where('key', '=', input.key)
      .execute();
    return getNamespace(tx, input.key);
  });
}

export async function deleteNamespace(sql: SqlContext, key: string, force: boolean): Promise<void> {
  await sql.write({ ns: key }, async (tx, exists) => {
    if (!exists) throw notFound(`namespace "${key}" not found`);
    const ns = await getNamespace(tx, key);
    if (ns.protected && !force) throw invalid(`namespace "${key}" is protected`);
    const flag = await tx.db.selectFrom('flags').select('key').where('namespace_key', '=', key).limit(1).executeTakeFirst();
    if (flag && !force) throw invalid(`namespace "${key}" cannot be deleted; flags must be deleted first`);
    // Flags first: their rules hold the references that keep segments from being deleted.
    await tx.db.deleteFrom('flags').where('namespace_key', '=', key).execute();
    await tx.db.deleteFrom('namespaces').where('key', '=', key).execute();
  });
}
