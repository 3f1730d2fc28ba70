import type { Tx } from '../transaction';

/** Rank bookkeeping shared by rules and rollouts: ranks are always 1..n without gaps. */

/** Gives the rows ranks 1..n in the order given, touching only those whose rank changes. */
export async function writeRanks(
  tx: Tx,
  table: 'rules' | 'rollouts',
  ordered: { id: string; rank: number | string }[],
): Promise<void> {
  for (const [i, row] of ordered.entries()) {
    if (Number(row.rank) === i + 1) continue;
    await tx.db.updateTable(table).set({ rank: i + 1 }).where('id', '=', row.id).execute();
  }
}

/** The rows with the listed ids first, in list order; unknown ids ignored; the rest after. */
export function reorder<T extends { id: string }>(current: T[], ids: string[]): T[] {
  const byId = new Map(current.map((r) => [r.id, r]));
  const listed = [...new Set(ids)].filter((id) => byId.has(id)).map((id) => byId.get(id)!);
  const listedSet = new Set(listed);
  return [...listed, ...current.filter((r) => !listedSet.has(r))];
}
