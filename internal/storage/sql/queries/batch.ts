import { setImmediate as nextTurn } from 'node:timers/promises';
import { CompiledQuery } from 'kysely';
import { newId, notFound } from '../../../core';
import type { NamespaceBatch } from '../../types';
import { enums, type Database } from '../tables';
import type { Tx } from '../transaction';
import { write } from './kinds';
import { bumpRevision } from './revision';

/**
 * Bulk creation for imports: every row built in memory, then written with multi-row INSERTs
 * in chunks (a few statements instead of ~40 per flag). Creation times come from the clock row
 * by row, so list order and the order of a rule's distributions are the batch's order.
 */

/**
 * Rows per statement: under every database's bound-parameter limit (SQLite: 32,766), and small
 * enough that one statement costs a few milliseconds — SQLite's driver runs it on the event loop.
 */
const PARAMETERS_PER_STATEMENT = 4_000;

async function insertAll<T extends keyof Database>(tx: Tx, table: T, rows: Database[T][]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0] as object) as (keyof Database[T])[];
  const per = Math.max(1, Math.floor(PARAMETERS_PER_STATEMENT / columns.length));
  // Kysely builds a node per value (~8% of a 10,000-flag import, and garbage): its SQL for a full
  // chunk is kept and run again with the next chunks' values, once its parameters for the first
  // chunk are shown to be the rows' values in column order.
  let fullChunk: string | null = null;
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    const values: unknown[] = [];
    for (const row of chunk) for (const column of columns) values.push(row[column]);
    if (fullChunk !== null && chunk.length === per) {
      await tx.db.executeQuery(CompiledQuery.raw(fullChunk, values));
    } else {
      // The rows match the table's shape; Kysely cannot type a generic table name.
      const compiled = tx.db.insertInto(table as 'flags').values(chunk as never[]).compile();
      if (chunk.length === per && sameValues(compiled.parameters, values)) fullChunk = compiled.sql;
      await tx.db.executeQuery(compiled);
    }
    // A turn of the loop between statements: a synchronous driver (SQLite) would otherwise run
    // the whole import as one chain of microtasks, and no evaluation is answered until it ends.
    await nextTurn();
  }
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

export const createBatch = write(async function createBatch(tx: Tx, ns: string, batch: NamespaceBatch): Promise<void> {
  const touched = { flags: batch.flags.map((f) => f.input.key), segments: batch.segments.map((s) => s.key) };
  if (!(await bumpRevision(tx, { ns, batch: touched }))) throw notFound(`namespace "${ns}" not found`);
  // References to segments are checked up front, with the message createRule would give.
  const known = new Set([...(await tx.db.selectFrom('segments').select('key').where('namespace_key', '=', ns).execute()).map((r) => r.key), ...batch.segments.map((s) => s.key)]);
  for (const f of batch.flags) {
    const used = [...f.rules.flatMap((r) => r.input.segmentKeys), ...f.rollouts.flatMap((r) => r.segment?.segmentKeys ?? [])];
    const missing = used.find((k) => !known.has(k));
    if (missing !== undefined) throw notFound(`flag "${ns}/${f.input.key}" or segment "${ns}/${missing}" not found`);
  }
  const now = () => tx.clock.nowMicros();
  const rows: { [T in Exclude<keyof Database, 'change_log' | 'audit_events' | 'audit_outbox' | 'audit_leases'>]: Database[T][] } = {
    namespaces: [],
    flags: [],
    variants: [],
    segments: [],
    constraints: [],
    rules: [],
    rule_segments: [],
    distributions: [],
    rollouts: [],
    rollout_segments: [],
    authentications: [],
  };

  for (const s of batch.segments) {
    const at = now();
    rows.segments.push({ namespace_key: ns, key: s.key, name: s.input.name, description: s.input.description, match_type: enums.matchType.toDb(s.input.matchType), created_at: at, updated_at: at });
    for (const c of s.constraints) {
      const t = now();
      rows.constraints.push({
        id: newId(),
        namespace_key: ns,
        segment_key: s.key,
        type: enums.comparison.toDb(c.type),
        property: c.property,
        operator: c.operator,
        value: c.value,
        description: c.description,
        created_at: t,
        updated_at: t,
      });
    }
  }

  for (const f of batch.flags) {
    const key = f.input.key;
    const flagAt = now();
    const variantIds = f.variants.map(() => newId());
    rows.flags.push({
      namespace_key: ns,
      key,
      name: f.input.name,
      description: f.input.description,
      enabled: f.input.enabled ? 1 : 0,
      type: enums.flagType.toDb(f.input.type),
      default_variant_id: f.defaultVariant === null ? null : variantIds[f.defaultVariant],
      metadata: f.input.metadata ? JSON.stringify(f.input.metadata) : null,
      created_at: flagAt,
      updated_at: flagAt,
    });
    f.variants.forEach((v, i) => {
      const t = now();
      rows.variants.push({ id: variantIds[i], namespace_key: ns, flag_key: key, key: v.key, name: v.name, description: v.description, attachment: v.attachment, created_at: t, updated_at: t });
    });
    f.rules.forEach((r, i) => {
      const id = newId();
      const t = now();
      rows.rules.push({ id, namespace_key: ns, flag_key: key, rank: i + 1, segment_operator: enums.segmentOperator.toDb(r.input.segmentOperator), created_at: t, updated_at: t });
      r.input.segmentKeys.forEach((segment_key, position) => rows.rule_segments.push({ rule_id: id, namespace_key: ns, segment_key, position }));
      for (const d of r.distributions) {
        const dt = now();
        rows.distributions.push({ id: newId(), rule_id: id, variant_id: variantIds[d.variant], rollout: d.rollout, created_at: dt, updated_at: dt });
      }
    });
    f.rollouts.forEach((r, i) => {
      const id = newId();
      const t = now();
      rows.rollouts.push({
        id,
        namespace_key: ns,
        flag_key: key,
        type: enums.rolloutType.toDb(r.threshold ? 'THRESHOLD_ROLLOUT_TYPE' : 'SEGMENT_ROLLOUT_TYPE'),
        rank: i + 1,
        description: r.description,
        threshold_percentage: r.threshold?.percentage ?? 0,
        threshold_value: r.threshold?.value ? 1 : 0,
        segment_operator: enums.segmentOperator.toDb(r.segment?.segmentOperator ?? 'OR_SEGMENT_OPERATOR'),
        segment_value: r.segment?.value ? 1 : 0,
        created_at: t,
        updated_at: t,
      });
      (r.segment?.segmentKeys ?? []).forEach((segment_key, position) => rows.rollout_segments.push({ rollout_id: id, namespace_key: ns, segment_key, position }));
    });
  }

  // Parents before children, so every reference is satisfied as rows arrive.
  for (const table of ['segments', 'constraints', 'flags', 'variants', 'rules', 'rule_segments', 'distributions', 'rollouts', 'rollout_segments'] as const) {
    await insertAll(tx, table, rows[table]);
  }
});
