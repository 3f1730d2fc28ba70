import { invalid, newId, notFound, type Constraint, type Page, type Segment } from '../../../core';
import type { ConstraintInput, ListParams, SegmentInput } from '../../types';
import { enums, toConstraint, toSegment, type ConstraintsTable, type SegmentsTable } from '../tables';
import type { Tx } from '../transaction';
import { read, write } from './kinds';
import { paged, pageOf } from './paging';
import { bumpRevision } from './revision';

const segmentRef = (ns: string, key: string) => `"${ns}/${key}"`;

async function constraintsOf(tx: Tx, ns: string, segmentKeys: string[]): Promise<Map<string, Constraint[]>> {
  const groups = new Map<string, Constraint[]>();
  if (segmentKeys.length === 0) return groups;
  let query = tx.db.selectFrom('constraints').selectAll().where('namespace_key', '=', ns);
  if (segmentKeys.length <= 500) query = query.where('segment_key', 'in', segmentKeys);
  const rows = await query.orderBy('created_at').orderBy('id').execute();
  for (const row of rows) {
    const group = groups.get(row.segment_key);
    if (group) group.push(toConstraint(row));
    else groups.set(row.segment_key, [toConstraint(row)]);
  }
  return groups;
}

async function segmentRow(tx: Tx, ns: string, key: string): Promise<SegmentsTable | undefined> {
  return tx.db.selectFrom('segments').selectAll().where('namespace_key', '=', ns).where('key', '=', key).executeTakeFirst();
}

export const getSegment = read(async function getSegment(tx: Tx, ns: string, key: string): Promise<Segment> {
  const row = await segmentRow(tx, ns, key);
  if (!row) throw notFound(`segment ${segmentRef(ns, key)} not found`);
  const constraints = await constraintsOf(tx, ns, [key]);
  return toSegment(row, constraints.get(key) ?? []);
});

export const listSegments = read(async function listSegments(tx: Tx, ns: string, params: ListParams): Promise<Page<Segment>> {
  const rows = await paged(
    tx.db.selectFrom('segments').selectAll().where('namespace_key', '=', ns).orderBy('created_at').orderBy('key'),
    params,
  ).execute();
  const { count } = await tx.db
    .selectFrom('segments')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('namespace_key', '=', ns)
    .executeTakeFirstOrThrow();
  const page = pageOf(rows, params, (r) => r.key);
  const constraints = await constraintsOf(tx, ns, page.items.map((r) => r.key));
  return {
    items: page.items.map((r) => toSegment(r, constraints.get(r.key) ?? [])),
    total: Number(count),
    next: page.next,
  };
});

export const createSegment = write(async function createSegment(tx: Tx, ns: string, key: string, input: SegmentInput): Promise<Segment> {
  if (!(await bumpRevision(tx, { ns, segment: key }))) throw notFound(`namespace "${ns}" not found`);
  const now = tx.clock.nowMicros();
  const row: SegmentsTable = {
    namespace_key: ns,
    key,
    name: input.name,
    description: input.description,
    match_type: enums.matchType.toDb(input.matchType),
    created_at: now,
    updated_at: now,
  };
  try {
    await tx.db.insertInto('segments').values(row).execute();
  } catch (err) {
    if (tx.dialect.isUniqueViolation(err)) throw invalid(`segment ${segmentRef(ns, key)} is not unique`);
    throw err;
  }
  return toSegment(row, []);
});

export const updateSegment = write(async function updateSegment(tx: Tx, ns: string, key: string, input: SegmentInput): Promise<Segment> {
  await bumpRevision(tx, { ns, segment: key });
  if (!(await segmentRow(tx, ns, key))) throw notFound(`segment ${segmentRef(ns, key)} not found`);
  await tx.db
    .updateTable('segments')
    .set({
      name: input.name,
      description: input.description,
      match_type: enums.matchType.toDb(input.matchType),
      updated_at: tx.clock.nowMicros(),
    })
    .where('namespace_key', '=', ns)
    .where('key', '=', key)
    .execute();
  return getSegment(tx, ns, key);
});

export const deleteSegment = write(async function deleteSegment(tx: Tx, ns: string, key: string): Promise<void> {
  await bumpRevision(tx, { ns, segment: key });
  if (!(await segmentRow(tx, ns, key))) return;
  const inRule = await tx.db
    .selectFrom('rule_segments')
    .select('rule_id')
    .where('namespace_key', '=', ns)
    .where('segment_key', '=', key)
    .limit(1)
    .executeTakeFirst();
  const inRollout = await tx.db
    .selectFrom('rollout_segments')
    .select('rollout_id')
    .where('namespace_key', '=', ns)
    .where('segment_key', '=', key)
    .limit(1)
    .executeTakeFirst();
  if (inRule || inRollout) throw invalid(`segment ${segmentRef(ns, key)} is in use`);
  await tx.db.deleteFrom('segments').where('namespace_key', '=', ns).where('key', '=', key).execute();
});

export const createConstraint = write(async function createConstraint(
  tx: Tx,
  ns: string,
  segmentKey: string,
  input: ConstraintInput,
): Promise<Constraint> {
  await bumpRevision(tx, { ns, segment: segmentKey });
  if (!(await segmentRow(tx, ns, segmentKey))) throw notFound(`segment ${segmentRef(ns, segmentKey)} not found`);
  const now = tx.clock.nowMicros();
  const row: ConstraintsTable = {
    id: newId(),
    namespace_key: ns,
    segment_key: segmentKey,
    type: enums.comparison.toDb(input.type),
    property: input.property,
    operator: input.operator,
    value: input.value,
    description: input.description,
    created_at: now,
    updated_at: now,
  };
  await tx.db.insertInto('constraints').values(row).execute();
  return toConstraint(row);
});

async function constraintRow(tx: Tx, ns: string, segmentKey: string, id: string) {
  return tx.db
    .selectFrom('constraints')
    .selectAll()
    .where('id', '=', id)
    .where('namespace_key', '=', ns)
    .where('segment_key', '=', segmentKey)
    .executeTakeFirst();
}

export const updateConstraint = write(async function updateConstraint(
  tx: Tx,
  ns: string,
  segmentKey: string,
  id: string,
  input: ConstraintInput,
): Promise<Constraint> {
  await bumpRevision(tx, { ns, segment: segmentKey });
  if (!(await constraintRow(tx, ns, segmentKey, id))) throw notFound(`constraint "${id}" not found`);
  await tx.db
    .updateTable('constraints')
    .set({
      type: enums.comparison.toDb(input.type),
      property: input.property,
      operator: input.operator,
      value: input.value,
      description: input.description,
      updated_at: tx.clock.nowMicros(),
    })
    .where('id', '=', id)
    .execute();
  return toConstraint((await constraintRow(tx, ns, segmentKey, id))!);
});

export const deleteConstraint = write(async function deleteConstraint(tx: Tx, ns: string, segmentKey: string, id: string): Promise<void> {
  await bumpRevision(tx, { ns, segment: segmentKey });
  await tx.db
    .deleteFrom('constraints')
    .where('id', '=', id)
    .where('namespace_key', '=', ns)
    .where('segment_key', '=', segmentKey)
    .execute();
});
