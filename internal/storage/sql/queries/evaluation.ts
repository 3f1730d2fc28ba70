import type { Constraint, Distribution, NamespaceData, Rollout, Rule, Variant } from '../../../core';
import type { Change, PartialNamespaceData } from '../../types';
import { bool, enums, int, toConstraint, toSegment } from '../tables';
import type { Tx } from '../transaction';
import { read, snapshotRead } from './kinds';
import { CHANGES_KEPT, revisionParts } from '../change-log';
import { revisionOf } from './revision';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * The evaluation read model: a whole namespace (or some of its flags) in a few namespace-wide
 * queries, inside one transaction so the data matches its revision. Only the columns
 * evaluation and the client snapshot use are read, as arrays: building an object per row is
 * most of a rebuild's cost. (Variants, rules, rollouts and distributions come back without
 * names, descriptions and timestamps.)
 */

/** Past this many flags, a partial read costs about as much as reading everything. */
const MAX_PARTIAL_FLAGS = 200;

function group<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

type Row = unknown[];
const s = (v: unknown) => v as string;

/** Rows whose first column is a key, in the order `keys` lists them. */
function inOrderOf(rows: Row[], keys: string[]): Row[] {
  const position = new Map(keys.map((key, i) => [key, i]));
  return rows.sort((a, b) => position.get(s(a[0]))! - position.get(s(b[0]))!);
}

/** Reads flags (all of the namespace's, or those listed) with everything they depend on. */
async function readModel(tx: Tx, ns: string, revision: string, only: string[] | null, extraSegments: string[] = [], pause = false): Promise<NamespaceData> {
  const db = tx.db;
  // Paging a large namespace (`pause`), the loop is also freed between a page's queries: each
  // is ~5–20 ms of synchronous work on SQLite at a page of ten-rule flags.
  const q = async <T extends { compile(): Parameters<Tx['rows']>[0] }>(query: T) => {
    if (pause) await nextTurn();
    return tx.rows(query.compile());
  };
  const keys = only ?? [];

  let flags = db
    .selectFrom('flags')
    .select(['key', 'name', 'description', 'enabled', 'type', 'default_variant_id', 'created_at', 'updated_at'])
    .where('namespace_key', '=', ns);
  let variants = db.selectFrom('variants').select(['id', 'flag_key', 'key', 'attachment']).where('namespace_key', '=', ns);
  let rules = db.selectFrom('rules').select(['id', 'flag_key', 'rank', 'segment_operator']).where('namespace_key', '=', ns);
  let ruleSegments = db.selectFrom('rule_segments').select(['rule_id', 'segment_key']).where('namespace_key', '=', ns);
  let distributions = db
    .selectFrom('distributions')
    .innerJoin('rules', 'rules.id', 'distributions.rule_id')
    .select(['distributions.rule_id', 'distributions.variant_id', 'distributions.rollout'])
    .where('rules.namespace_key', '=', ns);
  let rollouts = db
    .selectFrom('rollouts')
    .select(['id', 'flag_key', 'type', 'rank', 'threshold_percentage', 'threshold_value', 'segment_operator', 'segment_value'])
    .where('namespace_key', '=', ns);
  let rolloutSegments = db.selectFrom('rollout_segments').select(['rollout_id', 'segment_key']).where('namespace_key', '=', ns);
  if (only) {
    flags = flags.where('key', 'in', keys);
    variants = variants.where('flag_key', 'in', keys);
    rules = rules.where('flag_key', 'in', keys);
    // By owner id alone (a subquery; ids are unique across namespaces): with the namespace in
    // the condition too, SQLite reads every row of the namespace through its segment index.
    ruleSegments = db.selectFrom('rule_segments').select(['rule_id', 'segment_key']).where('rule_id', 'in', db.selectFrom('rules').select('id').where('namespace_key', '=', ns).where('flag_key', 'in', keys));
    distributions = distributions.where('rules.flag_key', 'in', keys);
    rollouts = rollouts.where('flag_key', 'in', keys);
    rolloutSegments = db.selectFrom('rollout_segments').select(['rollout_id', 'segment_key']).where(
      'rollout_id',
      'in',
      db.selectFrom('rollouts').select('id').where('namespace_key', '=', ns).where('flag_key', 'in', keys),
    );
  }

  // A page's flags come in the order of `keys` (the namespace's, read once): ordered by the
  // database, SQLite would walk every flag of the namespace by creation time to pick the page's.
  const flagRows = pause ? inOrderOf(await q(flags), keys) : await q(flags.orderBy('created_at').orderBy('key'));
  const variantRows = await q(variants.orderBy('created_at').orderBy('id'));
  const ruleRows = await q(rules.orderBy('rank').orderBy('created_at'));
  const ruleSegmentRows = await q(ruleSegments.orderBy('rule_id').orderBy('position'));
  const distributionRows = await q(distributions.orderBy('distributions.created_at').orderBy('distributions.id'));
  const rolloutRows = await q(rollouts.orderBy('rank').orderBy('created_at'));
  const rolloutSegmentRows = await q(rolloutSegments.orderBy('rollout_id').orderBy('position'));

  // Segments are few: all of them, or those the flags read (and any just changed).
  let segments = db.selectFrom('segments').selectAll().where('namespace_key', '=', ns);
  let constraints = db.selectFrom('constraints').selectAll().where('namespace_key', '=', ns);
  if (only) {
    const used = [...new Set([...ruleSegmentRows.map((r) => s(r[1])), ...rolloutSegmentRows.map((r) => s(r[1])), ...extraSegments])];
    segments = segments.where('key', 'in', used.length > 0 ? used : ['']);
    constraints = constraints.where('segment_key', 'in', used.length > 0 ? used : ['']);
  }
  if (pause) await nextTurn();
  const segmentRows = await segments.orderBy('created_at').orderBy('key').execute();
  if (pause) await nextTurn();
  const constraintRows = await constraints.orderBy('created_at').orderBy('id').execute();

  const variantsByFlag = group<Variant>(
    variantRows.map((r: Row) => ({
      id: s(r[0]),
      namespaceKey: ns,
      flagKey: s(r[1]),
      key: s(r[2]),
      name: '',
      description: '',
      attachment: s(r[3]),
      createdAt: 0,
      updatedAt: 0,
    })),
    (v) => v.flagKey,
  );
  const segmentsByRule = group(ruleSegmentRows, (r) => s(r[0]));
  const distributionsByRule = group<Distribution>(
    distributionRows.map((r: Row) => ({ id: '', ruleId: s(r[0]), variantId: s(r[1]), rollout: Number(r[2]), createdAt: 0, updatedAt: 0 })),
    (d) => d.ruleId,
  );
  const segmentsByRollout = group(rolloutSegmentRows, (r) => s(r[0]));
  const constraintsBySegment = group<Constraint>(constraintRows.map(toConstraint), (c) => c.segmentKey);

  const ruleList: Rule[] = ruleRows.map((r: Row) => ({
    id: s(r[0]),
    namespaceKey: ns,
    flagKey: s(r[1]),
    segmentKeys: (segmentsByRule.get(s(r[0])) ?? []).map((x) => s(x[1])),
    segmentOperator: enums.segmentOperator.fromDb(r[3] as number),
    rank: int(r[2] as number),
    distributions: distributionsByRule.get(s(r[0])) ?? [],
    createdAt: 0,
    updatedAt: 0,
  }));

  const rolloutList: Rollout[] = rolloutRows.map((r: Row) => {
    const type = enums.rolloutType.fromDb(r[2] as number);
    return {
      id: s(r[0]),
      namespaceKey: ns,
      flagKey: s(r[1]),
      type,
      rank: int(r[3] as number),
      description: '',
      threshold: type === 'THRESHOLD_ROLLOUT_TYPE' ? { percentage: Number(r[4]), value: bool(r[5] as number) } : null,
      segment:
        type === 'SEGMENT_ROLLOUT_TYPE'
          ? {
              segmentKeys: (segmentsByRollout.get(s(r[0])) ?? []).map((x) => s(x[1])),
              segmentOperator: enums.segmentOperator.fromDb(r[6] as number),
              value: bool(r[7] as number),
            }
          : null,
      createdAt: 0,
      updatedAt: 0,
    };
  });

  return {
    key: ns,
    revision,
    flags: flagRows.map((r: Row) => {
      const flagVariants = variantsByFlag.get(s(r[0])) ?? [];
      return {
        namespaceKey: ns,
        key: s(r[0]),
        name: s(r[1]),
        description: s(r[2]),
        enabled: bool(r[3] as number),
        type: enums.flagType.fromDb(r[4] as number),
        variants: flagVariants,
        defaultVariant: flagVariants.find((v) => v.id === r[5]) ?? null,
        metadata: null,
        createdAt: int(r[6] as number),
        updatedAt: int(r[7] as number),
      };
    }),
    segments: segmentRows.map((row) => toSegment(row, constraintsBySegment.get(row.key) ?? [])),
    rules: ruleList,
    rollouts: rolloutList,
  };
}

/**
 * Flags read per page in a large namespace. Reads are synchronous on SQLite (better-sqlite3):
 * evaluations run between pages and between a page's queries. A namespace this size or smaller
 * is read whole, as before.
 */
const FLAGS_PER_PAGE = 125;

/** Rows read per turn of the event loop where the driver is synchronous. */
const ROWS_PER_SLICE = 5000;

/** A namespace's flag keys in creation order: how a large one is cut into pages. */
async function flagKeysInOrder(tx: Tx, ns: string): Promise<string[]> {
  // In the index's order (flags_created_key): rows come without a sort, so on SQLite they are
  // read a slice per turn of the event loop.
  const query = tx.db.selectFrom('flags').select('key').where('namespace_key', '=', ns).orderBy('created_at').orderBy('key');
  if (!tx.dialect.sliceRows) return (await query.execute()).map((r) => r.key);
  const keys: string[] = [];
  for (const slice of tx.dialect.sliceRows(query.compile(), ROWS_PER_SLICE)) {
    for (const row of slice) keys.push(s(row[0]));
    await nextTurn();
  }
  return keys;
}

/**
 * A large namespace in pages of flags in creation order, in the same transaction (one
 * revision), each page with the segments its flags use; a small one as one page. Each page is
 * handed to `consume` before the next is read.
 */
async function readInPages(tx: Tx, ns: string, revision: string, consume: (page: NamespaceData) => Promise<void>): Promise<void> {
  const keys = await flagKeysInOrder(tx, ns);
  if (keys.length <= FLAGS_PER_PAGE) return consume(await readModel(tx, ns, revision, null));
  for (let at = 0; at < keys.length; at += FLAGS_PER_PAGE) {
    await consume(await readModel(tx, ns, revision, keys.slice(at, at + FLAGS_PER_PAGE), [], true));
    await nextTurn();
  }
}

/** The namespace page by page (see EvaluationSource.loadNamespacePages): a rebuild holds no more than a page of it. */
export const loadNamespacePages = snapshotRead(async function loadNamespacePages(tx: Tx, ns: string, consume: (page: NamespaceData) => Promise<void>): Promise<string | null> {
  const revision = await revisionOf(tx, ns);
  if (revision === null) return null;
  await readInPages(tx, ns, revision, consume);
  return revision;
});

export const loadNamespace = snapshotRead(async function loadNamespace(tx: Tx, ns: string): Promise<NamespaceData | null> {
  const revision = await revisionOf(tx, ns);
  if (revision === null) return null;
  // Pages merged: segments by key.
  const data: NamespaceData = { key: ns, revision, flags: [], segments: [], rules: [], rollouts: [] };
  const segments = new Map<string, NamespaceData['segments'][number]>();
  let pages = 0;
  await readInPages(tx, ns, revision, async (page) => {
    pages++;
    for (const flag of page.flags) data.flags.push(flag);
    for (const rule of page.rules) data.rules.push(rule);
    for (const rollout of page.rollouts) data.rollouts.push(rollout);
    for (const segment of page.segments) segments.set(segment.key, segment);
  });
  // One page is the whole namespace, its segments included (readModel without a key list).
  if (pages === 1) return { ...data, segments: [...segments.values()] };
  // The namespace's segments no flag uses are not needed to evaluate, but are part of its data.
  const unused = await tx.db.selectFrom('segments').select('key').where('namespace_key', '=', ns).execute();
  const missing = unused.map((r) => r.key).filter((key) => !segments.has(key));
  if (missing.length > 0) for (const segment of (await readModel(tx, ns, revision, [''], missing)).segments) segments.set(segment.key, segment);
  data.segments = [...segments.values()].sort((a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : 1));
  return data;
});

/** Some flags, plus every flag that uses one of `segmentKeys` (they must be recompiled too). */
export const loadFlags = snapshotRead(async function loadFlags(tx: Tx, ns: string, flagKeys: string[], segmentKeys: string[]): Promise<PartialNamespaceData | null> {
  const revision = await revisionOf(tx, ns);
  if (revision === null) return null;
  const considered = new Set(flagKeys);
  if (segmentKeys.length > 0) {
    const users = await tx.db
      .selectFrom('rule_segments')
      .innerJoin('rules', 'rules.id', 'rule_segments.rule_id')
      .select('rules.flag_key as flag')
      .where('rule_segments.namespace_key', '=', ns)
      .where('rule_segments.segment_key', 'in', segmentKeys)
      .union(
        tx.db
          .selectFrom('rollout_segments')
          .innerJoin('rollouts', 'rollouts.id', 'rollout_segments.rollout_id')
          .select('rollouts.flag_key as flag')
          .where('rollout_segments.namespace_key', '=', ns)
          .where('rollout_segments.segment_key', 'in', segmentKeys),
      )
      .execute();
    for (const u of users) considered.add(u.flag);
  }
  if (considered.size > MAX_PARTIAL_FLAGS) return null;
  const keys = [...considered];
  const data = await readModel(tx, ns, revision, keys.length > 0 ? keys : [''], segmentKeys);
  return { ...data, considered: keys };
});

/** Every namespace's revision in one query: how a poller notices writes by other instances. */
export const listRevisions = read(async function listRevisions(tx: Tx): Promise<Map<string, string>> {
  const rows = await tx.db.selectFrom('namespaces').select(['key', 'revision', 'created_at']).execute();
  return new Map(rows.map((r) => [r.key, `${r.created_at}:${r.revision}`]));
});

/**
 * The changes logged after `revision` (revision.ts `logChanges`), oldest first: what a snapshot
 * at that revision must reload to catch up. Null when the revision is not one the log can
 * continue from; a gap (a trimmed log) is for the caller to notice (each change's `before`).
 */
export const changesSince = read(async function changesSince(tx: Tx, ns: string, revision: string): Promise<Change[] | null> {
  const at = revisionParts(revision);
  if (!at) return null;
  const rows = await tx.db
    .selectFrom('change_log')
    .select(['revision_from', 'revision_to', 'flags', 'segments', 'whole'])
    .where('namespace_key', '=', ns)
    .where('namespace_created_at', '=', at.createdAt)
    .where('revision_to', '>', at.n)
    .orderBy('revision_to')
    .limit(CHANGES_KEPT)
    .execute();
  return rows.map((r) => ({
    ns,
    before: `${at.createdAt}:${r.revision_from}`,
    after: `${at.createdAt}:${r.revision_to}`,
    flags: JSON.parse(r.flags) as string[],
    segments: JSON.parse(r.segments) as string[],
    whole: Number(r.whole) === 1,
  }));
});
