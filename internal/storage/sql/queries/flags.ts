import { invalid, newId, notFound, type Flag, type Page, type Variant } from '../../../core';
import type { FlagCreateInput, FlagUpdateInput, ListParams, VariantInput } from '../../types';
import { enums, bool, int, toVariant, type FlagsTable, type VariantsTable } from '../tables';
import type { Tx } from '../transaction';
import { read, write } from './kinds';
import { paged, pageOf } from './paging';
import { flagExists } from './references';
import { bumpRevision } from './revision';

const flagRef = (ns: string, key: string) => `"${ns}/${key}"`;

function toFlag(r: FlagsTable, variants: Variant[]): Flag {
  return {
    namespaceKey: r.namespace_key,
    key: r.key,
    name: r.name,
    description: r.description,
    enabled: bool(r.enabled),
    type: enums.flagType.fromDb(r.type),
    variants,
    defaultVariant: variants.find((v) => v.id === r.default_variant_id) ?? null,
    metadata: r.metadata ? (JSON.parse(r.metadata) as Record<string, unknown>) : null,
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

/** Variants of the given flags, grouped by flag key, each group in creation order. */
async function variantsOf(tx: Tx, ns: string, flagKeys: string[]): Promise<Map<string, Variant[]>> {
  const groups = new Map<string, Variant[]>();
  if (flagKeys.length === 0) return groups;
  let query = tx.db.selectFrom('variants').selectAll().where('namespace_key', '=', ns);
  // Past a few hundred keys a namespace-wide read is cheaper than a long IN list.
  if (flagKeys.length <= 500) query = query.where('flag_key', 'in', flagKeys);
  const rows: VariantsTable[] = await query.orderBy('created_at').orderBy('id').execute();
  for (const row of rows) {
    const group = groups.get(row.flag_key);
    if (group) group.push(toVariant(row));
    else groups.set(row.flag_key, [toVariant(row)]);
  }
  return groups;
}

export const getFlag = read(async function getFlag(tx: Tx, ns: string, key: string): Promise<Flag> {
  const row = await tx.db
    .selectFrom('flags')
    .selectAll()
    .where('namespace_key', '=', ns)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) throw notFound(`flag ${flagRef(ns, key)} not found`);
  const variants = await variantsOf(tx, ns, [key]);
  return toFlag(row, variants.get(key) ?? []);
});

export const listFlags = read(async function listFlags(tx: Tx, ns: string, params: ListParams): Promise<Page<Flag>> {
  const rows = await paged(
    tx.db.selectFrom('flags').selectAll().where('namespace_key', '=', ns).orderBy('created_at').orderBy('key'),
    params,
  ).execute();
  const { count } = await tx.db
    .selectFrom('flags')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('namespace_key', '=', ns)
    .executeTakeFirstOrThrow();
  const page = pageOf(rows, params, (r) => r.key);
  const variants = await variantsOf(tx, ns, page.items.map((r) => r.key));
  return {
    items: page.items.map((r) => toFlag(r, variants.get(r.key) ?? [])),
    total: Number(count),
    next: page.next,
  };
});

export const createFlag = write(async function createFlag(tx: Tx, ns: string, input: FlagCreateInput): Promise<Flag> {
  if (!(await bumpRevision(tx, { ns, flag: input.key }))) throw notFound(`namespace "${ns}" not found`);
  const now = tx.clock.nowMicros();
  const row: FlagsTable = {
    namespace_key: ns,
    key: input.key,
    name: input.name,
    description: input.description,
    enabled: input.enabled ? 1 : 0,
    type: enums.flagType.toDb(input.type),
    default_variant_id: null,
    metadata: input.metadata ? JSON.stringify(input.metadata) : null,
    created_at: now,
    updated_at: now,
  };
  try {
    await tx.db.insertInto('flags').values(row).execute();
  } catch (err) {
    if (tx.dialect.isUniqueViolation(err)) throw invalid(`flag ${flagRef(ns, input.key)} is not unique`);
    throw err;
  }
  return toFlag(row, []);
});

export const updateFlag = write(async function updateFlag(tx: Tx, ns: string, key: string, input: FlagUpdateInput): Promise<Flag> {
  await bumpRevision(tx, { ns, flag: key });
  const current = await getFlag(tx, ns, key);
  if (input.defaultVariantId !== '' && !current.variants.some((v) => v.id === input.defaultVariantId)) {
    throw invalid(`variant "${input.defaultVariantId}" not found for flag ${flagRef(ns, key)}`);
  }
  await tx.db
    .updateTable('flags')
    .set({
      name: input.name,
      description: input.description,
      enabled: input.enabled ? 1 : 0,
      default_variant_id: input.defaultVariantId === '' ? null : input.defaultVariantId,
      ...(input.metadata !== undefined && { metadata: input.metadata ? JSON.stringify(input.metadata) : null }),
      updated_at: tx.clock.nowMicros(),
    })
    .where('namespace_key', '=', ns)
    .where('key', '=', key)
    .execute();
  return getFlag(tx, ns, key);
});

export const deleteFlag = write(async function deleteFlag(tx: Tx, ns: string, key: string): Promise<void> {
  await bumpRevision(tx, { ns, flag: key });
  // Variants, rules, distributions and rollouts go with it (ON DELETE CASCADE).
  await tx.db.deleteFrom('flags').where('namespace_key', '=', ns).where('key', '=', key).execute();
});

export const createVariant = write(async function createVariant(tx: Tx, ns: string, flagKey: string, input: VariantInput): Promise<Variant> {
  await bumpRevision(tx, { ns, flag: flagKey });
  if (!(await flagExists(tx, ns, flagKey))) throw notFound(`flag ${flagRef(ns, flagKey)} not found`);
  const now = tx.clock.nowMicros();
  const row: VariantsTable = { id: newId(), namespace_key: ns, flag_key: flagKey, ...variantColumns(input), created_at: now, updated_at: now };
  try {
    await tx.db.insertInto('variants').values(row).execute();
  } catch (err) {
    if (tx.dialect.isUniqueViolation(err)) {
      throw invalid(`variant "${input.key}" is not unique for flag ${flagRef(ns, flagKey)}`);
    }
    throw err;
  }
  return toVariant(row);
});

/** Only the input's own columns: callers may pass richer objects. */
const variantColumns = (v: VariantInput) => ({ key: v.key, name: v.name, description: v.description, attachment: v.attachment });

async function findVariant(tx: Tx, ns: string, flagKey: string, id: string): Promise<VariantsTable | undefined> {
  return tx.db
    .selectFrom('variants')
    .selectAll()
    .where('id', '=', id)
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .executeTakeFirst();
}

export const updateVariant = write(async function updateVariant(
  tx: Tx,
  ns: string,
  flagKey: string,
  id: string,
  input: VariantInput,
): Promise<Variant> {
  await bumpRevision(tx, { ns, flag: flagKey });
  // Flipt names the variant by the key it was sent, not the id, in this message.
  if (!(await findVariant(tx, ns, flagKey, id))) throw notFound(`variant "${input.key}" not found`);
  try {
    await tx.db
      .updateTable('variants')
      .set({ ...variantColumns(input), updated_at: tx.clock.nowMicros() })
      .where('id', '=', id)
      .execute();
  } catch (err) {
    if (tx.dialect.isUniqueViolation(err)) {
      throw invalid(`variant "${input.key}" is not unique for flag ${flagRef(ns, flagKey)}`);
    }
    throw err;
  }
  return toVariant((await findVariant(tx, ns, flagKey, id))!);
});

export const deleteVariant = write(async function deleteVariant(tx: Tx, ns: string, flagKey: string, id: string): Promise<void> {
  await bumpRevision(tx, { ns, flag: flagKey });
  if (!(await findVariant(tx, ns, flagKey, id))) return;
  await tx.db
    .updateTable('flags')
    .set({ default_variant_id: null })
    .where('namespace_key', '=', ns)
    .where('key', '=', flagKey)
    .where('default_variant_id', '=', id)
    .execute();
  // Its distributions go with it (ON DELETE CASCADE).
  await tx.db.deleteFrom('variants').where('id', '=', id).execute();
});
