import { AUTH_METHODS, invalid, type Distribution } from '../../../core';
import type { AuditOrigin, Clock } from '../../../core';
import type { AuditSinkSelection } from '../audit-recorder';
import type { Connection } from '../connection';
import { enums, type Database } from '../tables';
import { inTransaction, type Tx } from '../transaction';
import type { FliptV1Contents } from './read';

/**
 * A Flipt v1 database's contents written into Pennon's, in one write transaction: every object
 * with its id and timestamps (so lists keep their order and every evaluation its answer), every
 * authentication with its token hash (Flipt and Pennon both keep base64url(SHA-256(token)), so
 * the tokens applications hold keep working). A target with anything in it besides the empty
 * default namespace its migration creates is refused, unless `drop` empties it first (in the same
 * transaction: a failure leaves it as it was).
 */

export type CopyCounts = Record<'namespaces' | 'flags' | 'variants' | 'segments' | 'constraints' | 'rules' | 'distributions' | 'rollouts' | 'authentications', number>;

/** Rows per INSERT: far below every dialect's limit on bound parameters. */
const ROWS_PER_INSERT = 200;

const TABLES_CHILD_FIRST: (keyof Database)[] = ['change_log', 'authentications', 'rollout_segments', 'rollouts', 'distributions', 'rule_segments', 'rules', 'constraints', 'segments', 'variants', 'flags', 'namespaces'];

async function insertAll<T extends keyof Database>(tx: Tx, table: T, rows: Database[T][]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    await tx.db.insertInto(table).values(rows.slice(i, i + ROWS_PER_INSERT) as never).execute();
  }
}

async function count(tx: Tx, table: keyof Database): Promise<number> {
  const row = await tx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** What the target holds beyond the empty default namespace, in words; '' when nothing. */
async function contentsOf(tx: Tx): Promise<string> {
  const parts: string[] = [];
  for (const table of ['flags', 'segments', 'authentications'] as const) {
    const n = await count(tx, table);
    if (n > 0) parts.push(`${n} ${table}`);
  }
  const others = await tx.db.selectFrom('namespaces').select('key').where('key', '!=', 'default').execute();
  if (others.length > 0) parts.push(`${others.length} namespaces besides default`);
  return parts.join(', ');
}

/**
 * Distributions in the order Flipt evaluates them (creation order): microseconds kept strictly
 * increasing within a rule, as Pennon's clock keeps them, so two that Flipt created in the same
 * microsecond (SQLite keeps nanoseconds) keep their order here too.
 */
function ordered(distributions: Distribution[]): Distribution[] {
  let last = -Infinity;
  return distributions.map((d) => {
    const createdAt = d.createdAt <= last ? last + 1 : d.createdAt;
    last = createdAt;
    return createdAt === d.createdAt ? d : { ...d, createdAt };
  });
}

function countsOf(contents: FliptV1Contents): CopyCounts {
  const sum = (n: (data: FliptV1Contents['data'][number]) => number) => contents.data.reduce((total, data) => total + n(data), 0);
  return {
    namespaces: contents.namespaces.length,
    flags: sum((d) => d.flags.length),
    variants: sum((d) => d.flags.reduce((n, f) => n + f.variants.length, 0)),
    segments: sum((d) => d.segments.length),
    constraints: sum((d) => d.segments.reduce((n, s) => n + s.constraints.length, 0)),
    rules: sum((d) => d.rules.length),
    distributions: sum((d) => d.rules.reduce((n, r) => n + r.distributions.length, 0)),
    rollouts: sum((d) => d.rollouts.length),
    authentications: contents.authentications.length,
  };
}

/** `origin`: who the audit trail records the migration as; `auditSinks`: where its event waits to be delivered. */
export interface CopyOptions {
  drop: boolean;
  /** The Flipt database, as the migration's audit event names it. */
  from?: string;
  origin?: AuditOrigin;
  auditSinks?: readonly AuditSinkSelection[];
}

export async function copyFliptV1(connection: Connection, clock: Clock, contents: FliptV1Contents, options: CopyOptions): Promise<CopyCounts> {
  const database = { root: connection.db, clock, dialect: connection.adapter, auditSinks: options.auditSinks };
  const { result } = await inTransaction(
    database,
    'write',
    async (tx) => {
      const present = await contentsOf(tx);
      if (present !== '' && !options.drop) throw invalid(`the Pennon database is not empty (${present}): pass --drop to replace its contents with Flipt's`);
      for (const table of TABLES_CHILD_FIRST) await tx.db.deleteFrom(table).execute();

      await insertAll(
        tx,
        'namespaces',
        contents.namespaces.map((n) => ({ key: n.key, name: n.name, description: n.description, protected: n.protected ? 1 : 0, revision: 1, created_at: n.createdAt, updated_at: n.updatedAt })),
      );
      for (const data of contents.data) {
        await insertAll(
          tx,
          'flags',
          data.flags.map((f) => ({
            namespace_key: f.namespaceKey,
            key: f.key,
            name: f.name,
            description: f.description,
            enabled: f.enabled ? 1 : 0,
            type: enums.flagType.toDb(f.type),
            default_variant_id: f.defaultVariant?.id ?? null,
            metadata: f.metadata ? JSON.stringify(f.metadata) : null,
            created_at: f.createdAt,
            updated_at: f.updatedAt,
          })),
        );
        const variants = data.flags.flatMap((f) => f.variants);
        await insertAll(
          tx,
          'variants',
          variants.map((v) => ({ id: v.id, namespace_key: v.namespaceKey, flag_key: v.flagKey, key: v.key, name: v.name, description: v.description, attachment: v.attachment, created_at: v.createdAt, updated_at: v.updatedAt })),
        );
        await insertAll(
          tx,
          'segments',
          data.segments.map((s) => ({ namespace_key: s.namespaceKey, key: s.key, name: s.name, description: s.description, match_type: enums.matchType.toDb(s.matchType), created_at: s.createdAt, updated_at: s.updatedAt })),
        );
        const constraints = data.segments.flatMap((s) => s.constraints);
        await insertAll(
          tx,
          'constraints',
          constraints.map((c) => ({
            id: c.id,
            namespace_key: c.namespaceKey,
            segment_key: c.segmentKey,
            type: enums.comparison.toDb(c.type),
            property: c.property,
            operator: c.operator,
            value: c.value,
            description: c.description,
            created_at: c.createdAt,
            updated_at: c.updatedAt,
          })),
        );
        await insertAll(
          tx,
          'rules',
          data.rules.map((r) => ({ id: r.id, namespace_key: r.namespaceKey, flag_key: r.flagKey, rank: r.rank, segment_operator: enums.segmentOperator.toDb(r.segmentOperator), created_at: r.createdAt, updated_at: r.updatedAt })),
        );
        await insertAll(
          tx,
          'rule_segments',
          data.rules.flatMap((r) => r.segmentKeys.map((key, position) => ({ rule_id: r.id, namespace_key: r.namespaceKey, segment_key: key, position }))),
        );
        const distributions = data.rules.flatMap((r) => ordered(r.distributions));
        await insertAll(
          tx,
          'distributions',
          distributions.map((d) => ({ id: d.id, rule_id: d.ruleId, variant_id: d.variantId, rollout: d.rollout, created_at: d.createdAt, updated_at: d.updatedAt })),
        );
        await insertAll(
          tx,
          'rollouts',
          data.rollouts.map((r) => ({
            id: r.id,
            namespace_key: r.namespaceKey,
            flag_key: r.flagKey,
            type: enums.rolloutType.toDb(r.type),
            rank: r.rank,
            description: r.description,
            threshold_percentage: r.threshold?.percentage ?? 0,
            threshold_value: r.threshold?.value ? 1 : 0,
            segment_operator: enums.segmentOperator.toDb(r.segment?.segmentOperator ?? 'OR_SEGMENT_OPERATOR'),
            segment_value: r.segment?.value ? 1 : 0,
            created_at: r.createdAt,
            updated_at: r.updatedAt,
          })),
        );
        await insertAll(
          tx,
          'rollout_segments',
          data.rollouts.flatMap((r) => (r.segment?.segmentKeys ?? []).map((key, position) => ({ rollout_id: r.id, namespace_key: r.namespaceKey, segment_key: key, position }))),
        );
      }
      await insertAll(
        tx,
        'authentications',
        contents.authentications.map((a) => ({
          id: a.id,
          method: AUTH_METHODS.indexOf(a.method),
          hashed_client_token: a.hashedToken,
          metadata: JSON.stringify(a.metadata),
          expires_at: a.expiresAt,
          created_at: a.createdAt,
          updated_at: a.updatedAt,
        })),
      );
      const counts = countsOf(contents);
      // One event for the whole move: the objects came as they were in Flipt, not by anyone's edit.
      tx.audit.record('migration', 'created', { ns: '', key: '' }, null, { from: options.from ?? 'a Flipt v1 database', schemaVersion: contents.schemaVersion, dropped: options.drop, counts });
      return counts;
    },
    () => undefined,
    options.origin,
  );
  return result;
}
