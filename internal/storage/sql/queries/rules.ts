import { newId, notFound, type Distribution, type Page, type Rule } from '../../../core';
import type { DistributionInput, ListParams, RuleInput } from '../../types';
import { enums, int, toDistribution, type DistributionsTable, type RulesTable } from '../tables';
import type { Tx } from '../transaction';
import { read, write } from './kinds';
import { paged, pageOf } from './paging';
import { reorder, writeRanks } from './ranks';
import { RULE, firstMissingSegment, flagExists, segmentKeysOf, setSegmentKeys } from './references';
import { bumpRevision } from './revision';

async function distributionsOf(tx: Tx, ruleIds: string[]): Promise<Map<string, Distribution[]>> {
  const out = new Map<string, Distribution[]>();
  if (ruleIds.length === 0) return out;
  const rows = await tx.db
    .selectFrom('distributions')
    .selectAll()
    .where('rule_id', 'in', ruleIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const row of rows) {
    const list = out.get(row.rule_id);
    if (list) list.push(toDistribution(row));
    else out.set(row.rule_id, [toDistribution(row)]);
  }
  return out;
}

async function hydrate(tx: Tx, rows: RulesTable[]): Promise<Rule[]> {
  const ids = rows.map((r) => r.id);
  const [segments, distributions] = await Promise.all([segmentKeysOf(tx, RULE, ids), distributionsOf(tx, ids)]);
  return rows.map((r) => ({
    id: r.id,
    namespaceKey: r.namespace_key,
    flagKey: r.flag_key,
    segmentKeys: segments.get(r.id) ?? [],
    segmentOperator: enums.segmentOperator.fromDb(r.segment_operator),
    rank: int(r.rank),
    distributions: distributions.get(r.id) ?? [],
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  }));
}

function rulesOfFlag(tx: Tx, ns: string, flagKey: string) {
  return tx.db
    .selectFrom('rules')
    .selectAll()
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .orderBy('rank')
    .orderBy('created_at');
}

export const getRule = read(async function getRule(tx: Tx, ns: string, flagKey: string, id: string): Promise<Rule> {
  const row = await tx.db
    .selectFrom('rules')
    .selectAll()
    .where('id', '=', id)
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .executeTakeFirst();
  if (!row) throw notFound(`rule "${ns}/${id}" not found`);
  return (await hydrate(tx, [row]))[0];
});

export const listRules = read(async function listRules(tx: Tx, ns: string, flagKey: string, params: ListParams): Promise<Page<Rule>> {
  const rows = await paged(rulesOfFlag(tx, ns, flagKey), params).execute();
  const { count } = await tx.db
    .selectFrom('rules')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .executeTakeFirstOrThrow();
  const page = pageOf(rows, params, (r) => r.id);
  return { items: await hydrate(tx, page.items), total: Number(count), next: page.next };
});

async function checkFlagAndSegments(tx: Tx, ns: string, flagKey: string, segmentKeys: string[]): Promise<void> {
  const missing = (await flagExists(tx, ns, flagKey)) ? await firstMissingSegment(tx, ns, segmentKeys) : segmentKeys[0];
  if (missing !== null) throw notFound(`flag "${ns}/${flagKey}" or segment "${ns}/${missing}" not found`);
}

export const createRule = write(async function createRule(tx: Tx, ns: string, flagKey: string, rank: number, input: RuleInput): Promise<Rule> {
  await bumpRevision(tx, { ns, flag: flagKey });
  await checkFlagAndSegments(tx, ns, flagKey, input.segmentKeys);
  const siblings = await rulesOfFlag(tx, ns, flagKey).execute();
  // Insert at the requested position; later rules move down one, so ranks stay 1..n.
  const position = Math.min(Math.max(rank, 1), siblings.length + 1);
  const now = tx.clock.nowMicros();
  const row: RulesTable = {
    id: newId(),
    namespace_key: ns,
    flag_key: flagKey,
    rank: position,
    segment_operator: enums.segmentOperator.toDb(input.segmentOperator),
    created_at: now,
    updated_at: now,
  };
  await tx.db.insertInto('rules').values(row).execute();
  await setSegmentKeys(tx, RULE, row.id, ns, input.segmentKeys);
  const ordered: { id: string; rank: number | string }[] = [...siblings];
  ordered.splice(position - 1, 0, row);
  await writeRanks(tx, 'rules', ordered);
  return (await hydrate(tx, [row]))[0];
});

export const updateRule = write(async function updateRule(tx: Tx, ns: string, flagKey: string, id: string, input: RuleInput): Promise<Rule> {
  await bumpRevision(tx, { ns, flag: flagKey });
  await getRule(tx, ns, flagKey, id);
  await checkFlagAndSegments(tx, ns, flagKey, input.segmentKeys);
  await tx.db
    .updateTable('rules')
    .set({ segment_operator: enums.segmentOperator.toDb(input.segmentOperator), updated_at: tx.clock.nowMicros() })
    .where('id', '=', id)
    .execute();
  await setSegmentKeys(tx, RULE, id, ns, input.segmentKeys);
  return getRule(tx, ns, flagKey, id);
});

export const deleteRule = write(async function deleteRule(tx: Tx, ns: string, flagKey: string, id: string): Promise<void> {
  await bumpRevision(tx, { ns, flag: flagKey });
  await tx.db
    .deleteFrom('rules')
    .where('id', '=', id)
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .execute();
  await writeRanks(tx, 'rules', await rulesOfFlag(tx, ns, flagKey).execute());
});

/** Listed rules take ranks 1..k in list order; unknown ids are ignored; unlisted rules follow. */
export const orderRules = write(async function orderRules(tx: Tx, ns: string, flagKey: string, ruleIds: string[]): Promise<void> {
  await bumpRevision(tx, { ns, flag: flagKey });
  await writeRanks(tx, 'rules', reorder(await rulesOfFlag(tx, ns, flagKey).execute(), ruleIds));
});

async function ruleOfFlagExists(tx: Tx, ns: string, flagKey: string, ruleId: string): Promise<boolean> {
  const row = await tx.db
    .selectFrom('rules')
    .select('id')
    .where('id', '=', ruleId)
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .executeTakeFirst();
  return row !== undefined;
}

function distributionMissing(ns: string, flagKey: string, ruleId: string, variantId: string) {
  return notFound(`variant "${variantId}", rule "${ruleId}", flag "${flagKey}" in namespace "${ns}" not found`);
}

async function checkRuleAndVariant(tx: Tx, ns: string, flagKey: string, ruleId: string, variantId: string) {
  const rule = await ruleOfFlagExists(tx, ns, flagKey, ruleId);
  const variant = await tx.db
    .selectFrom('variants')
    .select('id')
    .where('id', '=', variantId)
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .executeTakeFirst();
  if (!rule || !variant) throw distributionMissing(ns, flagKey, ruleId, variantId);
}

export const createDistribution = write(async function createDistribution(
  tx: Tx,
  ns: string,
  flagKey: string,
  ruleId: string,
  input: DistributionInput,
): Promise<Distribution> {
  await bumpRevision(tx, { ns, flag: flagKey });
  await checkRuleAndVariant(tx, ns, flagKey, ruleId, input.variantId);
  const now = tx.clock.nowMicros();
  const row: DistributionsTable = {
    id: newId(),
    rule_id: ruleId,
    variant_id: input.variantId,
    rollout: input.rollout,
    created_at: now,
    updated_at: now,
  };
  await tx.db.insertInto('distributions').values(row).execute();
  return toDistribution(row);
});

export const updateDistribution = write(async function updateDistribution(
  tx: Tx,
  ns: string,
  flagKey: string,
  ruleId: string,
  id: string,
  input: DistributionInput,
): Promise<Distribution> {
  await bumpRevision(tx, { ns, flag: flagKey });
  const find = () => tx.db.selectFrom('distributions').selectAll().where('id', '=', id).where('rule_id', '=', ruleId).executeTakeFirst();
  if (!(await find())) throw notFound(`distribution "${id}" not found`);
  await checkRuleAndVariant(tx, ns, flagKey, ruleId, input.variantId);
  await tx.db
    .updateTable('distributions')
    .set({ variant_id: input.variantId, rollout: input.rollout, updated_at: tx.clock.nowMicros() })
    .where('id', '=', id)
    .execute();
  return toDistribution((await find())!);
});

export const deleteDistribution = write(async function deleteDistribution(
  tx: Tx,
  ns: string,
  flagKey: string,
  ruleId: string,
  id: string,
  variantId: string,
): Promise<void> {
  await bumpRevision(tx, { ns, flag: flagKey });
  const rule = await ruleOfFlagExists(tx, ns, flagKey, ruleId);
  if (!rule) return;
  await tx.db
    .deleteFrom('distributions')
    .where('id', '=', id)
    .where('rule_id', '=', ruleId)
    .where('variant_id', '=', variantId)
    .execute();
});
