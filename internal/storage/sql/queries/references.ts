import type { Tx } from '../transaction';

/**
 * What rules and rollouts refer to: their flag, and their segments (rule_segments /
 * rollout_segments, kept in the order given; the tables differ only in the owner column).
 */
type Owner = { table: 'rule_segments'; column: 'rule_id' } | { table: 'rollout_segments'; column: 'rollout_id' };

export const RULE: Owner = { table: 'rule_segments', column: 'rule_id' };
export const ROLLOUT: Owner = { table: 'rollout_segments', column: 'rollout_id' };

export async function segmentKeysOf(tx: Tx, owner: Owner, ids: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (ids.length === 0) return out;
  // The two tables differ only in the owner column's name; Kysely cannot type a union of them.
  const rows = (await tx.db
    .selectFrom(owner.table as 'rule_segments')
    .select([`${owner.column as 'rule_id'} as owner`, 'segment_key'])
    .where(owner.column as 'rule_id', 'in', ids)
    .orderBy('position')
    .execute()) as { owner: string; segment_key: string }[];
  for (const row of rows) {
    const keys = out.get(row.owner);
    if (keys) keys.push(row.segment_key);
    else out.set(row.owner, [row.segment_key]);
  }
  return out;
}

export async function setSegmentKeys(tx: Tx, owner: Owner, id: string, ns: string, keys: string[]): Promise<void> {
  await tx.db
    .deleteFrom(owner.table as 'rule_segments')
    .where(owner.column as 'rule_id', '=', id)
    .execute();
  if (keys.length === 0) return;
  await tx.db
    .insertInto(owner.table as 'rule_segments')
    .values(keys.map((segment_key, position) => ({ [owner.column]: id, namespace_key: ns, segment_key, position }) as never))
    .execute();
}

/** The first of `keys` that is not a segment of the namespace, or null when all exist. */
export async function firstMissingSegment(tx: Tx, ns: string, keys: string[]): Promise<string | null> {
  if (keys.length === 0) return null;
  const rows = await tx.db
    .selectFrom('segments')
    .select('key')
    .where('namespace_key', '=', ns)
    .where('key', 'in', keys)
    .execute();
  const found = new Set(rows.map((r) => r.key));
  return keys.find((k) => !found.has(k)) ?? null;
}

export async function flagExists(tx: Tx, ns: string, key: string): Promise<boolean> {
  const row = await tx.db
    .selectFrom('flags')
    .select('key')
    .where('namespace_key', '=', ns)
    .where('key', '=', key)
    .executeTakeFirst();
  return row !== undefined;
}
