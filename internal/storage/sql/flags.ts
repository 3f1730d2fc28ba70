import { invalid, newId, notFound, type Flag, type Page, type Variant } from '../../core';
import type { FlagCreateInput, FlagUpdateInput, ListParams, VariantInput } from '../types';
import { paged, pageOf, type SqlContext } from './context';
import { enums, bool, int, toVariant, type FlagsTable, type VariantsTable } from './tables';

const flagRef = (ns: string, key: string) => `"${ns}/${key}"`;

export function toFlag(r: FlagsTable, variants: Variant[]): Flag {
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
async function variantsOf(sql: SqlContext, ns: string, flagKeys: string[]): Promise<Map<string, Variant[]>> {
  const groups = new Map<string, Variant[]>();
  if (flagKeys.length === 0) return groups;
  let query = sql.db.selectFrom('variants').selectAll().where('namespace_key', '=', ns);
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

export async function getFlag(sql: SqlContext, ns: string, key: string): Promise<Flag> {
  const row = await sql.db
    .selectFrom('flags')
    .selectAll()
    .where('namespace_key', '=', ns)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) throw notFound(`flag ${flagRef(ns, key)} not found`);
  const variants = await variantsOf(sql, ns, [key]);
  return toFlag(row, variants.get(key) ?? []);
}

export async function listFlags(sql: SqlContext, ns: string, params: ListParams): Promise<Page<Flag>> {
  const rows = await paged(
    sql.db.selectFrom('flags').selectAll().where('namespace_key', '=', ns).orderBy('created_at').orderBy('key'),
    params,
  ).execute();
  const { count } = await sql.db
    .selectFrom('flags')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('namespace_key', '=', ns)
    .executeTakeFirstOrThrow();
  const page = pageOf(rows, params, (r) => r.key);
  const variants = await variantsOf(sql, ns, page.items.map((r) => r.key));
  return {
    items: page.items.map((r) => toFlag(r, variants.get(r.key) ?? [])),
    total: Number(count),
    next: page.next,
  };
}

export async function createFlag(sql: SqlContext, ns: string, input: FlagCreateInput): Promise<Flag> {
  return sql.write({ ns, flag: input.key }, async (tx, exists) => {
    if (!exists) throw notFound(`namespace "${ns}" not found`);
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
}

export async function updateFlag(sql: SqlContext, ns: string, key: string, input: FlagUpdateInput): Promise<Flag> {
  return sql.write({ ns, flag: key }, async (tx) => {
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
}

export async function deleteFlag(sql: SqlContext, ns: string, key: string): Promise<void> {
  await sql.write({ ns, flag: key }, async (tx) => {
    // Variants, rules, distributions and rollouts go with it (ON DELETE CASCADE).
    await tx.db.deleteFrom('flags').where('namespace_key', '=', ns).where('key', '=', key).execute();
  });
}

export async function createVariant(sql: SqlContext, ns: string, flagKey: string, input: VariantInput): Promise<Variant> {
  return sql.write({ ns, flag: flagKey }, async (tx) => {
    const flag = await tx.db
      .selectFrom('flags')
      .select('key')
      .where('namespace_key', '=', ns)
      .where('key', '=', flagKey)
      .executeTakeFirst();
    if (!flag) throw notFound(`flag ${flagRef(ns, flagKey)} not found`);
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
}

/** Only the input's own columns: callers may pass richer objects. */
const variantColumns = (v: VariantInput) => ({ key: v.key, name: v.name, description: v.description, attachment: v.attachment });

async function findVariant(sql: SqlContext, ns: string, flagKey: string, id: string): Promise<VariantsTable | undefined> {
  return sql.db
    .selectFrom('variants')
    .selectAll()
    .where('id', '=', id)
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .executeTakeFirst();
}

export async function updateVariant(
  sql: SqlContext,
  ns: string,
  flagKey: string,
  id: string,
  input: VariantInput,
): Promise<Variant> {
  return sql.write({ ns, flag: flagKey }, async (tx) => {
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
}

export async function deleteVariant(sql: SqlContext, ns: string, flagKey: string, id: string): Promise<void> {
  await sql.write({ ns, flag: flagKey }, async (tx) => {
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
}
