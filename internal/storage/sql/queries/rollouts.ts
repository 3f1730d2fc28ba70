import { invalid, newId, notFound, type Page, type Rollout, type RolloutType } from '../../../core';
import type { ListParams, RolloutInput } from '../../types';
import { enums, toRollout, type RolloutsTable } from '../tables';
import type { Tx } from '../transaction';
import { read, write } from './kinds';
import { paged, pageOf } from './paging';
import { reorder, writeRanks } from './ranks';
import { ROLLOUT, firstMissingSegment, flagExists, segmentKeysOf, setSegmentKeys } from './references';
import { bumpRevision } from './revision';

async function hydrate(tx: Tx, rows: RolloutsTable[]): Promise<Rollout[]> {
  const segments = await segmentKeysOf(tx, ROLLOUT, rows.map((r) => r.id));
  return rows.map((r) => toRollout(r, segments.get(r.id) ?? []));
}

function rolloutsOfFlag(tx: Tx, ns: string, flagKey: string) {
  return tx.db
    .selectFrom('rollouts')
    .selectAll()
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .orderBy('rank')
    .orderBy('created_at');
}

export const getRollout = read(async function getRollout(tx: Tx, ns: string, flagKey: string, id: string): Promise<Rollout> {
  const row = await tx.db
    .selectFrom('rollouts')
    .selectAll()
    .where('id', '=', id)
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .executeTakeFirst();
  if (!row) throw notFound(`rollout "${ns}/${id}" not found`);
  return (await hydrate(tx, [row]))[0];
});

export const listRollouts = read(async function listRollouts(tx: Tx, ns: string, flagKey: string, params: ListParams): Promise<Page<Rollout>> {
  const rows = await paged(rolloutsOfFlag(tx, ns, flagKey), params).execute();
  const { count } = await tx.db
    .selectFrom('rollouts')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .executeTakeFirstOrThrow();
  const page = pageOf(rows, params, (r) => r.id);
  return { items: await hydrate(tx, page.items), total: Number(count), next: page.next };
});

const typeOf = (input: RolloutInput): RolloutType => (input.threshold ? 'THRESHOLD_ROLLOUT_TYPE' : 'SEGMENT_ROLLOUT_TYPE');

/** The columns that hold a rollout's rule, whichever kind it is. */
function ruleColumns(input: RolloutInput) {
  return {
    threshold_percentage: input.threshold?.percentage ?? 0,
    threshold_value: input.threshold?.value ? 1 : 0,
    segment_operator: enums.segmentOperator.toDb(input.segment?.segmentOperator ?? 'OR_SEGMENT_OPERATOR'),
    segment_value: input.segment?.value ? 1 : 0,
  };
}

async function checkFlagAndSegments(tx: Tx, ns: string, flagKey: string, input: RolloutInput): Promise<void> {
  const keys = input.segment?.segmentKeys ?? [];
  const exists = await flagExists(tx, ns, flagKey);
  const missing = exists ? await firstMissingSegment(tx, ns, keys) : (keys[0] ?? '');
  // Flipt's message, misplaced quote included.
  if (!exists || missing !== null) throw notFound(`flag "${ns}/${flagKey} or segment ${missing ?? ''}" not found`);
}

export const createRollout = write(async function createRollout(
  tx: Tx,
  ns: string,
  flagKey: string,
  rank: number,
  input: RolloutInput,
): Promise<Rollout> {
  await bumpRevision(tx, { ns, flag: flagKey });
  await checkFlagAndSegments(tx, ns, flagKey, input);
  const siblings = await rolloutsOfFlag(tx, ns, flagKey).execute();
  if (rank >= 1 && rank <= siblings.length) throw invalid(`rank number: ${rank} already exists`);
  const now = tx.clock.nowMicros();
  const row: RolloutsTable = {
    id: newId(),
    namespace_key: ns,
    flag_key: flagKey,
    type: enums.rolloutType.toDb(typeOf(input)),
    // A rank past the end (or 0, which Flipt allows) appends: ranks stay 1..n.
    rank: siblings.length + 1,
    description: input.description,
    ...ruleColumns(input),
    created_at: now,
    updated_at: now,
  };
  await tx.db.insertInto('rollouts').values(row).execute();
  await setSegmentKeys(tx, ROLLOUT, row.id, ns, input.segment?.segmentKeys ?? []);
  return (await hydrate(tx, [row]))[0];
});

export const updateRollout = write(async function updateRollout(
  tx: Tx,
  ns: string,
  flagKey: string,
  id: string,
  input: RolloutInput,
): Promise<Rollout> {
  await bumpRevision(tx, { ns, flag: flagKey });
  const current = await getRollout(tx, ns, flagKey, id);
  if (current.type !== typeOf(input)) {
    throw invalid(`cannot change type of rollout: have "${current.type}" attempted "${typeOf(input)}"`);
  }
  await checkFlagAndSegments(tx, ns, flagKey, input);
  await tx.db
    .updateTable('rollouts')
    .set({ description: input.description, ...ruleColumns(input), updated_at: tx.clock.nowMicros() })
    .where('id', '=', id)
    .execute();
  if (input.segment) await setSegmentKeys(tx, ROLLOUT, id, ns, input.segment.segmentKeys);
  return getRollout(tx, ns, flagKey, id);
});

export const deleteRollout = write(async function deleteRollout(tx: Tx, ns: string, flagKey: string, id: string): Promise<void> {
  await bumpRevision(tx, { ns, flag: flagKey });
  await tx.db
    .deleteFrom('rollouts')
    .where('id', '=', id)
    .where('namespace_key', '=', ns)
    .where('flag_key', '=', flagKey)
    .execute();
  await writeRanks(tx, 'rollouts', await rolloutsOfFlag(tx, ns, flagKey).execute());
});

export const orderRollouts = write(async function orderRollouts(tx: Tx, ns: string, flagKey: string, rolloutIds: string[]): Promise<void> {
  await bumpRevision(tx, { ns, flag: flagKey });
  await writeRanks(tx, 'rollouts', reorder(await rolloutsOfFlag(tx, ns, flagKey).execute(), rolloutIds));
});
