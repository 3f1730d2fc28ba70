import { sql, type Kysely } from 'kysely';
import {
  AUTH_METHODS,
  COMPARISON_TYPES,
  FLAG_TYPES,
  MATCH_TYPES,
  ROLLOUT_TYPES,
  SEGMENT_OPERATORS,
  type Authentication,
  type Flag,
  type Namespace,
  type NamespaceData,
  type Rollout,
  type Rule,
  type Segment,
  type Variant,
} from '../../../core';
import type { Connection } from '../connection';
import { bool, json, num, optionalTimestampMicros, text, timestampMicros } from './values';

/**
 * A Flipt v1 database (any schema Flipt v1.40–v1.61 leaves, on SQLite, PostgreSQL, MySQL or
 * CockroachDB) read whole into Pennon's domain objects, ids and timestamps as they are. Only
 * SELECTs: the source is never written. Columns a version lacks (flags.default_variant_id and
 * flags.metadata before v1.4x) read as absent.
 */

export interface FliptV1Contents {
  /** golang-migrate's last applied migration (schema_migrations.version); null when there is none. */
  schemaVersion: number | null;
  namespaces: Namespace[];
  /** One per namespace, in the namespaces' order. */
  data: NamespaceData[];
  authentications: Authentication[];
}

type Row = Record<string, unknown>;

/** Where the reads run: one read-only transaction, so the copy is of one state of the database. */
interface Reader {
  db: Kysely<unknown>;
  hasTable(name: string): Promise<boolean>;
}

async function rows(reader: Reader, query: ReturnType<typeof sql>): Promise<Row[]> {
  return ((await query.execute(reader.db)) as { rows: Row[] }).rows;
}

/** MySQL's and MariaDB's float columns are single precision: 33.33 reads back 33.33000183105469. Flipt's percentages are float32 on the wire too. */
function float32(value: unknown): number {
  const n = num(value);
  return Number(Math.fround(n).toPrecision(7));
}

const byName = <T extends string>(values: readonly T[], n: unknown, column: string): T => {
  const value = values[num(n)];
  if (value === undefined) throw new Error(`${column}: ${String(n)} is not one of Flipt's values`);
  return value;
};

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

const ns = (row: Row) => text(row.namespace_key);

export async function readFliptV1(connection: Connection): Promise<FliptV1Contents> {
  return connection.db.transaction().execute(async (trx) => {
    // MySQL hands TIMESTAMP columns over in the session's time zone: Flipt's are UTC.
    if (connection.adapter.name === 'mysql') await sql`SET time_zone = '+00:00'`.execute(trx);
    return readAll({ db: trx as unknown as Kysely<unknown>, hasTable: (name) => connection.hasTable(name) });
  });
}

async function readAll(connection: Reader): Promise<FliptV1Contents> {
  for (const table of ['namespaces', 'flags', 'variants', 'segments', 'constraints', 'rules', 'rule_segments', 'distributions', 'rollouts', 'authentications']) {
    if (!(await connection.hasTable(table))) {
      throw new Error(`this is not a Flipt v1 database of v1.40 or later: it has no ${table} table`);
    }
  }
  let schemaVersion: number | null = null;
  if (await connection.hasTable('schema_migrations')) {
    const [row] = await rows(connection, sql`SELECT version, dirty FROM schema_migrations`);
    if (row && bool(row.dirty)) throw new Error(`the Flipt database's last migration (${String(row.version)}) did not complete (schema_migrations.dirty): repair it with Flipt first`);
    schemaVersion = row ? num(row.version) : null;
  }

  const namespaces: Namespace[] = (await rows(connection, sql`SELECT * FROM namespaces ORDER BY created_at, ${sql.ref('key')}`)).map((r) => ({
    key: text(r.key),
    name: text(r.name),
    description: text(r.description),
    protected: bool(r.protected),
    createdAt: timestampMicros(r.created_at, 'namespaces.created_at'),
    updatedAt: timestampMicros(r.updated_at, 'namespaces.updated_at'),
  }));

  const variants: Variant[] = (await rows(connection, sql`SELECT * FROM variants ORDER BY created_at, id`)).map((r) => ({
    id: text(r.id),
    namespaceKey: ns(r),
    flagKey: text(r.flag_key),
    key: text(r.key),
    name: text(r.name),
    description: text(r.description),
    // JSON columns: MySQL's driver hands JSON over parsed; PostgreSQL's and SQLite's as text.
    attachment: r.attachment !== null && typeof r.attachment === 'object' && !Buffer.isBuffer(r.attachment) ? JSON.stringify(r.attachment) : text(r.attachment),
    createdAt: timestampMicros(r.created_at, 'variants.created_at'),
    updatedAt: timestampMicros(r.updated_at, 'variants.updated_at'),
  }));
  const variantsOf = groupBy(variants, (v) => `${v.namespaceKey}\u0000${v.flagKey}`);
  const variantById = new Map(variants.map((v) => [v.id, v]));

  const flags: Flag[] = (await rows(connection, sql`SELECT * FROM flags ORDER BY created_at, ${sql.ref('key')}`)).map((r) => {
    const metadata = json(r.metadata, 'flags.metadata');
    const defaultId = text(r.default_variant_id);
    return {
      namespaceKey: ns(r),
      key: text(r.key),
      name: text(r.name),
      description: text(r.description),
      enabled: bool(r.enabled),
      type: byName(FLAG_TYPES, r.type ?? 0, 'flags.type'),
      variants: variantsOf.get(`${ns(r)}\u0000${text(r.key)}`) ?? [],
      defaultVariant: defaultId === '' ? null : (variantById.get(defaultId) ?? null),
      metadata: metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : null,
      createdAt: timestampMicros(r.created_at, 'flags.created_at'),
      updatedAt: timestampMicros(r.updated_at, 'flags.updated_at'),
    };
  });

  const constraintsOf = groupBy(
    (await rows(connection, sql`SELECT * FROM constraints ORDER BY created_at, id`)).map((r) => ({
      id: text(r.id),
      namespaceKey: ns(r),
      segmentKey: text(r.segment_key),
      type: byName(COMPARISON_TYPES, r.type, 'constraints.type'),
      property: text(r.property),
      operator: text(r.operator),
      value: text(r.value),
      description: text(r.description),
      createdAt: timestampMicros(r.created_at, 'constraints.created_at'),
      updatedAt: timestampMicros(r.updated_at, 'constraints.updated_at'),
    })),
    (c) => `${c.namespaceKey}\u0000${c.segmentKey}`,
  );
  const segments: Segment[] = (await rows(connection, sql`SELECT * FROM segments ORDER BY created_at, ${sql.ref('key')}`)).map((r) => ({
    namespaceKey: ns(r),
    key: text(r.key),
    name: text(r.name),
    description: text(r.description),
    matchType: byName(MATCH_TYPES, r.match_type ?? 0, 'segments.match_type'),
    constraints: constraintsOf.get(`${ns(r)}\u0000${text(r.key)}`) ?? [],
    createdAt: timestampMicros(r.created_at, 'segments.created_at'),
    updatedAt: timestampMicros(r.updated_at, 'segments.updated_at'),
  }));

  const ruleSegments = groupBy(await rows(connection, sql`SELECT * FROM rule_segments ORDER BY rule_id, segment_key`), (r) => text(r.rule_id));
  const distributionsOf = groupBy(
    (await rows(connection, sql`SELECT * FROM distributions ORDER BY created_at, id`)).map((r) => ({
      id: text(r.id),
      ruleId: text(r.rule_id),
      variantId: text(r.variant_id),
      rollout: float32(r.rollout),
      createdAt: timestampMicros(r.created_at, 'distributions.created_at'),
      updatedAt: timestampMicros(r.updated_at, 'distributions.updated_at'),
    })),
    (d) => d.ruleId,
  );
  const rules: Rule[] = (await rows(connection, sql`SELECT * FROM rules ORDER BY created_at, id`)).map((r) => ({
    id: text(r.id),
    namespaceKey: ns(r),
    flagKey: text(r.flag_key),
    segmentKeys: (ruleSegments.get(text(r.id)) ?? []).map((s) => text(s.segment_key)),
    segmentOperator: byName(SEGMENT_OPERATORS, r.segment_operator ?? 0, 'rules.segment_operator'),
    rank: num(r.rank),
    distributions: distributionsOf.get(text(r.id)) ?? [],
    createdAt: timestampMicros(r.created_at, 'rules.created_at'),
    updatedAt: timestampMicros(r.updated_at, 'rules.updated_at'),
  }));

  const rollouts = await readRollouts(connection);
  const authentications: Authentication[] = (await rows(connection, sql`SELECT * FROM authentications ORDER BY created_at, id`)).map((r) => {
    const metadata = json(r.metadata, 'authentications.metadata');
    return {
      id: text(r.id),
      method: byName(AUTH_METHODS, r.method ?? 0, 'authentications.method'),
      hashedToken: text(r.hashed_client_token),
      metadata: metadata !== null && typeof metadata === 'object' ? Object.fromEntries(Object.entries(metadata as Row).map(([k, v]) => [k, text(v)])) : {},
      expiresAt: optionalTimestampMicros(r.expires_at, 'authentications.expires_at'),
      createdAt: timestampMicros(r.created_at, 'authentications.created_at'),
      updatedAt: timestampMicros(r.updated_at, 'authentications.updated_at'),
    };
  });

  const flagsIn = groupBy(flags, (f) => f.namespaceKey);
  const segmentsIn = groupBy(segments, (s) => s.namespaceKey);
  const rulesIn = groupBy(rules, (r) => r.namespaceKey);
  const rolloutsIn = groupBy(rollouts, (r) => r.namespaceKey);
  const data = namespaces.map(
    (n): NamespaceData => ({ key: n.key, revision: '', flags: flagsIn.get(n.key) ?? [], segments: segmentsIn.get(n.key) ?? [], rules: rulesIn.get(n.key) ?? [], rollouts: rolloutsIn.get(n.key) ?? [] }),
  );
  return { schemaVersion, namespaces, data, authentications };
}

/** Rollouts with their threshold or segments (Flipt keeps them in three more tables). */
async function readRollouts(connection: Reader): Promise<Rollout[]> {
  if (!(await connection.hasTable('rollouts'))) return [];
  const thresholds = new Map((await rows(connection, sql`SELECT * FROM rollout_thresholds`)).map((r) => [text(r.rollout_id), r]));
  const segmentRows = await rows(connection, sql`SELECT * FROM rollout_segments`);
  const segmentsByRollout = new Map(segmentRows.map((r) => [text(r.rollout_id), r]));
  // v1.26 on: a rollout's segments are references; before, rollout_segments named one segment.
  const references = (await connection.hasTable('rollout_segment_references'))
    ? groupBy(await rows(connection, sql`SELECT * FROM rollout_segment_references ORDER BY rollout_segment_id, segment_key`), (r) => text(r.rollout_segment_id))
    : new Map(segmentRows.map((r) => [text(r.id), [r]]));
  return (await rows(connection, sql`SELECT * FROM rollouts ORDER BY created_at, id`)).map((r): Rollout => {
    const id = text(r.id);
    const threshold = thresholds.get(id);
    const segment = segmentsByRollout.get(id);
    return {
      id,
      namespaceKey: ns(r),
      flagKey: text(r.flag_key),
      type: byName(ROLLOUT_TYPES, r.type, 'rollouts.type'),
      rank: num(r.rank),
      description: text(r.description),
      threshold: threshold ? { percentage: float32(threshold.percentage), value: bool(threshold.value) } : null,
      segment: segment
        ? {
            segmentKeys: (references.get(text(segment.id)) ?? []).map((s) => text(s.segment_key)),
            segmentOperator: byName(SEGMENT_OPERATORS, segment.segment_operator ?? 0, 'rollout_segments.segment_operator'),
            value: bool(segment.value),
          }
        : null,
      createdAt: timestampMicros(r.created_at, 'rollouts.created_at'),
      updatedAt: timestampMicros(r.updated_at, 'rollouts.updated_at'),
    };
  });
}
