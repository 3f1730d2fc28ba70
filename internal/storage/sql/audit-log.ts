import type { AuditType, Authentication } from '../../core';
import type { NamespaceBatch } from '../types';
import { getAuthentication } from './queries/authentications';
import { getFlag } from './queries/flags';
import { getNamespace } from './queries/namespaces';
import { getRollout } from './queries/rollouts';
import { getRule } from './queries/rules';
import { getSegment } from './queries/segments';
import { tokenNamespace, tokenRecord } from './audit-recorder';
import type { Tx } from './transaction';

/**
 * The audit trail's write side: each write method of the store recorded as one event (or a few),
 * with the object before (read in the write's transaction, before the write) and after, and
 * written with the write's transaction (transaction.ts), beside the change log.
 */

/** A read of the object before a write; a missing one is null (the write itself says it is missing, in its words). */
async function beforeOf<T>(read: () => Promise<T | null | undefined>): Promise<T | null> {
  try {
    return (await read()) ?? null;
  } catch {
    return null;
  }
}

async function idsInRank(tx: Tx, table: 'rules' | 'rollouts', ns: string, flagKey: string): Promise<string[]> {
  const rows = await tx.db.selectFrom(table).select('id').where('namespace_key', '=', ns).where('flag_key', '=', flagKey).orderBy('rank').execute();
  return rows.map((r) => r.id);
}

/* eslint-disable @typescript-eslint/no-explicit-any -- each entry reads its own method's arguments */
type Audit = (tx: Tx, args: any[], run: () => Promise<any>) => Promise<unknown>;

const created =
  (type: AuditType, at: (args: any[], result: any) => { ns: string; key: string; objectId?: string }): Audit =>
  async (tx, args, run) => {
    const result = await run();
    tx.audit.record(type, 'created', at(args, result), null, result);
    return result;
  };

const changed =
  (type: AuditType, action: 'updated' | 'deleted', at: (args: any[]) => { ns: string; key: string; objectId?: string }, read: (tx: Tx, args: any[]) => Promise<unknown>): Audit =>
  async (tx, args, run) => {
    const before = await beforeOf(() => read(tx, args));
    const result = await run();
    tx.audit.record(type, action, at(args), before, action === 'deleted' ? null : result);
    return result;
  };

const reordered =
  (type: 'rule' | 'rollout', table: 'rules' | 'rollouts'): Audit =>
  async (tx, [ns, flagKey, ids], run) => {
    const before = await idsInRank(tx, table, ns, flagKey);
    const result = await run();
    tx.audit.record(type, 'reordered', { ns, key: flagKey }, { flagKey, ids: before }, { flagKey, ids: await idsInRank(tx, table, ns, flagKey) });
    return result;
  };

const flagAt = ([ns, flagKey]: any[]) => ({ ns, key: flagKey });
const child = ([ns, key, id]: any[]) => ({ ns, key, objectId: id });
const variantOf = async (tx: Tx, [ns, flagKey, id]: any[]) => (await getFlag(tx, ns, flagKey)).variants.find((v) => v.id === id);
const constraintOf = async (tx: Tx, [ns, segmentKey, id]: any[]) => (await getSegment(tx, ns, segmentKey)).constraints.find((c) => c.id === id);
const distributionOf = async (tx: Tx, [ns, flagKey, ruleId, id]: any[]) => (await getRule(tx, ns, flagKey, ruleId)).distributions.find((d) => d.id === id);

/** Every write method of the store port, and how it is recorded. A write method missing here fails the build (store.ts). */
export const AUDITED = {
  createNamespace: created('namespace', ([input]) => ({ ns: input.key, key: input.key })),
  updateNamespace: changed('namespace', 'updated', ([input]) => ({ ns: input.key, key: input.key }), (tx, [input]) => getNamespace(tx, input.key)),
  deleteNamespace: changed('namespace', 'deleted', ([key]) => ({ ns: key, key }), (tx, [key]) => getNamespace(tx, key)),

  createFlag: created('flag', ([ns], flag) => ({ ns, key: flag.key })),
  updateFlag: changed('flag', 'updated', flagAt, (tx, [ns, key]) => getFlag(tx, ns, key)),
  deleteFlag: changed('flag', 'deleted', flagAt, (tx, [ns, key]) => getFlag(tx, ns, key)),
  createVariant: created('variant', ([ns, flagKey], v) => ({ ns, key: flagKey, objectId: v.id })),
  updateVariant: changed('variant', 'updated', child, variantOf),
  deleteVariant: changed('variant', 'deleted', child, variantOf),

  createSegment: created('segment', ([ns], s) => ({ ns, key: s.key })),
  updateSegment: changed('segment', 'updated', flagAt, (tx, [ns, key]) => getSegment(tx, ns, key)),
  deleteSegment: changed('segment', 'deleted', flagAt, (tx, [ns, key]) => getSegment(tx, ns, key)),
  createConstraint: created('constraint', ([ns, segmentKey], c) => ({ ns, key: segmentKey, objectId: c.id })),
  updateConstraint: changed('constraint', 'updated', child, constraintOf),
  deleteConstraint: changed('constraint', 'deleted', child, constraintOf),

  createRule: created('rule', ([ns, flagKey], r) => ({ ns, key: flagKey, objectId: r.id })),
  updateRule: changed('rule', 'updated', child, (tx, [ns, flagKey, id]) => getRule(tx, ns, flagKey, id)),
  deleteRule: changed('rule', 'deleted', child, (tx, [ns, flagKey, id]) => getRule(tx, ns, flagKey, id)),
  orderRules: reordered('rule', 'rules'),
  createDistribution: created('distribution', ([ns, flagKey], d) => ({ ns, key: flagKey, objectId: d.id })),
  updateDistribution: changed('distribution', 'updated', ([ns, flagKey, , id]) => ({ ns, key: flagKey, objectId: id }), distributionOf),
  deleteDistribution: changed('distribution', 'deleted', ([ns, flagKey, , id]) => ({ ns, key: flagKey, objectId: id }), distributionOf),

  createRollout: created('rollout', ([ns, flagKey], r) => ({ ns, key: flagKey, objectId: r.id })),
  updateRollout: changed('rollout', 'updated', child, (tx, [ns, flagKey, id]) => getRollout(tx, ns, flagKey, id)),
  deleteRollout: changed('rollout', 'deleted', child, (tx, [ns, flagKey, id]) => getRollout(tx, ns, flagKey, id)),
  orderRollouts: reordered('rollout', 'rollouts'),

  createBatch: async (tx, [ns, batch], run) => {
    const result = await run();
    recordBatch(tx, ns, batch);
    return result;
  },

  createAuthentication: async (tx, args, run) => {
    const token: Authentication = await run();
    tx.audit.record('token', 'created', { ns: tokenNamespace(token), key: token.id, objectId: token.id }, null, tokenRecord(token));
    return token;
  },
  deleteAuthentication: async (tx, [id], run) => {
    const before = await getAuthentication(tx, id);
    const result = await run();
    if (before) tx.audit.tokenDeleted(before);
    return result;
  },
  expireAuthentication: async (tx, [id], run) => {
    const before = await getAuthentication(tx, id);
    const result = await run();
    if (before) tx.audit.record('token', 'expired', { ns: tokenNamespace(before), key: id, objectId: id }, tokenRecord(before), tokenRecord(await getAuthentication(tx, id)));
    return result;
  },
  // A standalone event (a denied request): the event is all the write there is.
  recordAuditEvent: async (tx, [event], run) => {
    await run();
    tx.audit.record(event.type, event.action, { ns: event.namespace, key: event.key }, null, event.payload);
  },
  // Records each token it deletes itself (AuditRecorder.tokenDeleted): only the query knows which.
  deleteExpiredAuthentications: (tx, args, run) => run(),
} satisfies Record<string, Audit>;
/* eslint-enable @typescript-eslint/no-explicit-any */

/** An import's batch: its summary's counts, and each flag and segment it created as an event of its own. */
function recordBatch(tx: Tx, ns: string, batch: NamespaceBatch): void {
  let variants = 0;
  let rules = 0;
  let rollouts = 0;
  let constraints = 0;
  for (const flag of batch.flags) {
    variants += flag.variants.length;
    rules += flag.rules.length;
    rollouts += flag.rollouts.length;
    tx.audit.record('flag', 'created', { ns, key: flag.input.key }, null, flag);
  }
  for (const segment of batch.segments) {
    constraints += segment.constraints.length;
    tx.audit.record('segment', 'created', { ns, key: segment.key }, null, segment);
  }
  tx.audit.imported(ns, { flags: batch.flags.length, segments: batch.segments.length, variants, rules, rollouts, constraints });
}
