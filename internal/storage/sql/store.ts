import type { Kysely } from 'kysely';
import { internal, invalid, isPennonError, notFound, unavailable, type Clock } from '../../core';
import type { Change, ChangeListener, Store } from '../types';
import { bumpRevision, type DialectAdapter, type SqlContext, type WriteScope } from './context';
import * as auth from './authentications';
import * as batch from './batch';
import * as evaluation from './evaluation';
import * as flags from './flags';
import * as namespaces from './namespaces';
import * as rollouts from './rollouts';
import * as rules from './rules';
import * as segments from './segments';
import { sleep } from './pool';
import type { Database, Db } from './tables';

/** How many times a transaction runs before a retryable conflict is reported (as Unavailable). */
export const TRANSACTION_ATTEMPTS = 8;

/**
 * The window the pause after a lost conflict is drawn from (full jitter): it doubles with each
 * attempt, starting from how long the losing attempt ran (at least 10 ms), up to 2 s. Scaled by
 * that duration, contenders spread over a few transactions' worth of time whatever the machine's
 * speed: in fixed milliseconds the windows were narrow next to the slower transactions of a
 * loaded machine, and a burst of writers to one namespace could run out of attempts.
 */
export function retryWindowMs(attempt: number, attemptMs: number): number {
  return Math.min(2000, Math.max(10, attemptMs) * 2 ** attempt);
}

/** Subscribers to committed changes, shared by a store and the transactions it opens. */
class Notifier {
  private readonly listeners = new Set<ChangeListener>();
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(changes: Iterable<Change>): void {
    for (const change of changes) for (const listener of this.listeners) listener(change);
  }
}

/** What one transaction changed, per namespace, merged write by write. */
class Changes {
  private readonly byNamespace = new Map<string, Change>();

  record(scope: WriteScope, revisions: { before: string | null; after: string | null } | null): void {
    const existing = this.byNamespace.get(scope.ns);
    const change: Change = existing ?? {
      ns: scope.ns,
      before: revisions?.before ?? null,
      after: null,
      flags: [],
      segments: [],
      whole: false,
    };
    change.after = revisions?.after ?? null;
    if (scope.flag !== undefined) change.flags.push(scope.flag);
    else if (scope.segment !== undefined) change.segments.push(scope.segment);
    else change.whole = true;
    this.byNamespace.set(scope.ns, change);
  }

  all(): Iterable<Change> {
    return this.byNamespace.values();
  }
}

/**
 * The one SQL store, for every dialect. Each method runs a resource function from this folder
 * and translates what the driver throws into the domain's errors, so no SQL text or driver
 * detail ever reaches a client. Listeners hear of a namespace's change once its transaction
 * has committed.
 */
export class SqlStore implements Store {
  private readonly ctx: SqlContext;
  /** Transactions run again after a retryable conflict, since this store was made (for tests and metrics). */
  retries = 0;

  constructor(
    private readonly root: Kysely<Database>,
    private readonly clock: Clock,
    private readonly dialect: DialectAdapter,
    private readonly notifier = new Notifier(),
    private readonly executor: Db = root,
    /** Set inside a transaction: what it changed, announced after commit. */
    private readonly changes: Changes | null = null,
  ) {
    this.ctx = {
      db: executor,
      clock,
      dialect,
      write: (scope, fn) => this.write(scope, fn),
      created: (ns, revision) => this.changes?.record({ ns }, { before: null, after: revision }),
      rows: async (query) =>
        dialect.arrayRows
          ? dialect.arrayRows(query)
          : (await executor.executeQuery<Record<string, unknown>>(query)).rows.map((row) => Object.values(row)),
    };
  }

  /**
   * Runs `fn` in a new transaction, with the dialect's isolation for writes or for snapshot
   * reads. A transaction that lost a conflict the database asks us to retry (CockroachDB's
   * 40001, deadlocks) runs again whole, after a jittered pause; its changes are announced
   * only once one attempt commits.
   */
  private async inTransaction<T>(fn: (tx: SqlStore) => Promise<T>, kind: 'write' | 'snapshot' = 'write'): Promise<T> {
    const isolation = kind === 'write' ? this.dialect.writeIsolation : this.dialect.snapshotIsolation;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const changes = new Changes();
      const builder = this.root.transaction();
      try {
        const result = await (isolation ? builder.setIsolationLevel(isolation) : builder).execute((trx) =>
          fn(new SqlStore(this.root, this.clock, this.dialect, this.notifier, trx, changes)),
        );
        this.notifier.emit(changes.all());
        return result;
      } catch (err) {
        if (attempt >= TRANSACTION_ATTEMPTS || !this.dialect.isRetryable?.(err)) throw err;
        this.retries++;
        // Full jitter, growing: contenders spread out instead of colliding again in step.
        await sleep(Math.random() * retryWindowMs(attempt, performance.now() - started));
      }
    }
  }

  private async write<T>(scope: WriteScope, fn: (tx: SqlContext, exists: boolean) => Promise<T>): Promise<T> {
    if (!this.changes) return this.inTransaction(async (tx) => tx.write(scope, fn));
    const revisions = await bumpRevision(this.executor, scope.ns);
    const result = await fn(this.ctx, revisions !== null);
    // Recorded after `fn`, so a namespace deleted by it reports no revision after.
    const scoped = scope.flag !== undefined || scope.segment !== undefined;
    const still = revisions && (scoped || (await this.executor.selectFrom('namespaces').select('key').where('key', '=', scope.ns).executeTakeFirst()));
    this.changes.record(scope, revisions && { before: revisions.before, after: still ? revisions.after : null });
    return result;
  }

  private async run<T>(op: (ctx: SqlContext) => Promise<T>): Promise<T> {
    try {
      return await op(this.ctx);
    } catch (err) {
      throw this.translate(err);
    }
  }

  /**
   * What a driver error means in the domain (public so that the mapping can be checked against
   * each real database's errors). Never carries SQL text: the driver error is only the cause.
   */
  translate(err: unknown): Error {
    if (isPennonError(err)) return err;
    if (this.dialect.isConnectionError(err)) return unavailable('the database is unavailable', err);
    // Still conflicting after every attempt: the client may try again later.
    if (this.dialect.isRetryable?.(err)) return unavailable('the database is busy; try again', err);
    if (this.dialect.isUniqueViolation(err)) return invalid('not unique');
    if (this.dialect.isForeignKeyViolation(err)) return notFound('associated resource not found');
    if (this.dialect.isInvalidValue?.(err)) return invalid('the request contains a value the database cannot hold (for example a NUL character)');
    return internal('storage error', err);
  }

  onChange(listener: ChangeListener): () => void {
    return this.notifier.subscribe(listener);
  }

  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    if (this.changes) return fn(this);
    return this.run(() => this.inTransaction(fn));
  }

  async close(): Promise<void> {
    await this.root.destroy();
  }

  loadNamespace: Store['loadNamespace'] = (ns) =>
    this.run(() => (this.changes ? evaluation.loadNamespace(this.ctx, ns) : this.inTransaction((tx) => evaluation.loadNamespace(tx.ctx, ns), 'snapshot')));
  loadFlags: Store['loadFlags'] = (ns, flags, segments) =>
    this.run(() =>
      this.changes
        ? evaluation.loadFlags(this.ctx, ns, flags, segments)
        : this.inTransaction((tx) => evaluation.loadFlags(tx.ctx, ns, flags, segments), 'snapshot'),
    );
  listRevisions: Store['listRevisions'] = () => this.run((c) => evaluation.listRevisions(c));
  getRevision = (ns: string) => this.run((c) => namespaces.getRevision(c, ns));
  getNamespace = (key: string) => this.run((c) => namespaces.getNamespace(c, key));
  listNamespaces: Store['listNamespaces'] = (p) => this.run((c) => namespaces.listNamespaces(c, p));
  createNamespace: Store['createNamespace'] = (i) => this.run((c) => namespaces.createNamespace(c, i));
  updateNamespace: Store['updateNamespace'] = (i) => this.run((c) => namespaces.updateNamespace(c, i));
  deleteNamespace: Store['deleteNamespace'] = (k, f) => this.run((c) => namespaces.deleteNamespace(c, k, f));

  getFlag: Store['getFlag'] = (ns, k) => this.run((c) => flags.getFlag(c, ns, k));
  listFlags: Store['listFlags'] = (ns, p) => this.run((c) => flags.listFlags(c, ns, p));
  createFlag: Store['createFlag'] = (ns, i) => this.run((c) => flags.createFlag(c, ns, i));
  updateFlag: Store['updateFlag'] = (ns, k, i) => this.run((c) => flags.updateFlag(c, ns, k, i));
  deleteFlag: Store['deleteFlag'] = (ns, k) => this.run((c) => flags.deleteFlag(c, ns, k));
  createVariant: Store['createVariant'] = (ns, f, i) => this.run((c) => flags.createVariant(c, ns, f, i));
  updateVariant: Store['updateVariant'] = (ns, f, id, i) => this.run((c) => flags.updateVariant(c, ns, f, id, i));
  deleteVariant: Store['deleteVariant'] = (ns, f, id) => this.run((c) => flags.deleteVariant(c, ns, f, id));

  getSegment: Store['getSegment'] = (ns, k) => this.run((c) => segments.getSegment(c, ns, k));
  listSegments: Store['listSegments'] = (ns, p) => this.run((c) => segments.listSegments(c, ns, p));
  createSegment: Store['createSegment'] = (ns, k, i) => this.run((c) => segments.createSegment(c, ns, k, i));
  updateSegment: Store['updateSegment'] = (ns, k, i) => this.run((c) => segments.updateSegment(c, ns, k, i));
  deleteSegment: Store['deleteSegment'] = (ns, k) => this.run((c) => segments.deleteSegment(c, ns, k));
  createConstraint: Store['createConstraint'] = (ns, s, i) => this.run((c) => segments.createConstraint(c, ns, s, i));
  updateConstraint: Store['updateConstraint'] = (ns, s, id, i) => this.run((c) => segments.updateConstraint(c, ns, s, id, i));
  deleteConstraint: Store['deleteConstraint'] = (ns, s, id) => this.run((c) => segments.deleteConstraint(c, ns, s, id));

  getRule: Store['getRule'] = (ns, f, id) => this.run((c) => rules.getRule(c, ns, f, id));
  listRules: Store['listRules'] = (ns, f, p) => this.run((c) => rules.listRules(c, ns, f, p));
  createRule: Store['createRule'] = (ns, f, r, i) => this.run((c) => rules.createRule(c, ns, f, r, i));
  updateRule: Store['updateRule'] = (ns, f, id, i) => this.run((c) => rules.updateRule(c, ns, f, id, i));
  deleteRule: Store['deleteRule'] = (ns, f, id) => this.run((c) => rules.deleteRule(c, ns, f, id));
  orderRules: Store['orderRules'] = (ns, f, ids) => this.run((c) => rules.orderRules(c, ns, f, ids));
  createDistribution: Store['createDistribution'] = (ns, f, r, i) => this.run((c) => rules.createDistribution(c, ns, f, r, i));
  updateDistribution: Store['updateDistribution'] = (ns, f, r, id, i) =>
    this.run((c) => rules.updateDistribution(c, ns, f, r, id, i));
  deleteDistribution: Store['deleteDistribution'] = (ns, f, r, id, v) =>
    this.run((c) => rules.deleteDistribution(c, ns, f, r, id, v));

  getRollout: Store['getRollout'] = (ns, f, id) => this.run((c) => rollouts.getRollout(c, ns, f, id));
  listRollouts: Store['listRollouts'] = (ns, f, p) => this.run((c) => rollouts.listRollouts(c, ns, f, p));
  createRollout: Store['createRollout'] = (ns, f, r, i) => this.run((c) => rollouts.createRollout(c, ns, f, r, i));
  updateRollout: Store['updateRollout'] = (ns, f, id, i) => this.run((c) => rollouts.updateRollout(c, ns, f, id, i));
  deleteRollout: Store['deleteRollout'] = (ns, f, id) => this.run((c) => rollouts.deleteRollout(c, ns, f, id));
  orderRollouts: Store['orderRollouts'] = (ns, f, ids) => this.run((c) => rollouts.orderRollouts(c, ns, f, ids));
  createBatch: Store['createBatch'] = (ns, b) => this.run((c) => batch.createBatch(c, ns, b));

  createAuthentication: Store['createAuthentication'] = (i) => this.run((c) => auth.createAuthentication(c, i));
  getAuthentication: Store['getAuthentication'] = (id) => this.run((c) => auth.getAuthentication(c, id));
  getAuthenticationByHash: Store['getAuthenticationByHash'] = (h) => this.run((c) => auth.getAuthenticationByHash(c, h));
  listAuthentications: Store['listAuthentications'] = (m, l, o) => this.run((c) => auth.listAuthentications(c, m, l, o));
  countAuthentications: Store['countAuthentications'] = (m) => this.run((c) => auth.countAuthentications(c, m));
  deleteAuthentication: Store['deleteAuthentication'] = (id) => this.run((c) => auth.deleteAuthentication(c, id));
  expireAuthentication: Store['expireAuthentication'] = (id, at) => this.run((c) => auth.expireAuthentication(c, id, at));
  deleteExpiredAuthentications: Store['deleteExpiredAuthentications'] = (m, b) => this.run((c) => auth.deleteExpiredAuthentications(c, m, b));
}
