import { invalid, notFound, type Namespace, type Page } from '../../../core';
import type { ListParams, NamespaceInput } from '../../types';
import { toNamespace } from '../tables';
import type { Tx } from '../transaction';
import { read, write } from './kinds';
import { paged, pageOf } from './paging';
import { bumpRevision, revisionOf } from './revision';

export const getNamespace = read(async function getNamespace(tx: Tx, key: string): Promise<Namespace> {
  const row = await tx.db.selectFrom('namespaces').selectAll().where('key', '=', key).executeTakeFirst();
  if (!row) throw notFound(`namespace "${key}" not found`);
  return toNamespace(row);
});

export const listNamespaces = read(async function listNamespaces(tx: Tx, params: ListParams): Promise<Page<Namespace>> {
  const rows = await paged(tx.db.selectFrom('namespaces').selectAll().orderBy('created_at').orderBy('key'), params).execute();
  const { count } = await tx.db
    .selectFrom('namespaces')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  const page = pageOf(rows, params, (r) => r.key);
  return { items: page.items.map(toNamespace), total: Number(count), next: page.next };
});

export const getRevision = read(async function getRevision(tx: Tx, key: string): Promise<string | null> {
  return revisionOf(tx, key);
});

export const createNamespace = write(async function createNamespace(tx: Tx, input: NamespaceInput): Promise<Namespace> {
  const now = tx.clock.nowMicros();
  try {
    await tx.db
      .insertInto('namespaces')
      .values({ key: input.key, name: input.name, description: input.description, protected: 0, revision: 1, created_at: now, updated_at: now })
      .execute();
  } catch (err) {
    if (tx.dialect.isUniqueViolation(err)) throw invalid(`namespace "${input.key}" is not unique`);
    throw err;
  }
  const created = await tx.db.selectFrom('namespaces').select('created_at').where('key', '=', input.key).executeTakeFirstOrThrow();
  tx.changes.created(input.key, `${created.created_at}:1`);
  return getNamespace(tx, input.key);
});

export const updateNamespace = write(async function updateNamespace(tx: Tx, input: NamespaceInput): Promise<Namespace> {
  if (!(await bumpRevision(tx, { ns: input.key }))) throw notFound(`namespace "${input.key}" not found`);
  await tx.db
    .updateTable('namespaces')
    .set({ name: input.name, description: input.description, updated_at: tx.clock.nowMicros() })
    .where('key', '=', input.key)
    .execute();
  return getNamespace(tx, input.key);
});

export const deleteNamespace = write(async function deleteNamespace(tx: Tx, key: string, force: boolean): Promise<void> {
  if (!(await bumpRevision(tx, { ns: key }))) throw notFound(`namespace "${key}" not found`);
  const ns = await getNamespace(tx, key);
  if (ns.protected && !force) throw invalid(`namespace "${key}" is protected`);
  const flag = await tx.db.selectFrom('flags').select('key').where('namespace_key', '=', key).limit(1).executeTakeFirst();
  if (flag && !force) throw invalid(`namespace "${key}" cannot be deleted; flags must be deleted first`);
  // Flags first: their rules hold the references that keep segments from being deleted.
  await tx.db.deleteFrom('flags').where('namespace_key', '=', key).execute();
  await tx.db.deleteFrom('namespaces').where('key', '=', key).execute();
  tx.changes.deleted(key);
});
