import type { Change } from '../types';
import type { Db } from './tables';

/**
 * The change log (migration 0004_change_log): what each committed write touched, so that the
 * snapshot caches of other processes reload only that (queries/evaluation.ts `changesSince`).
 */

/** Changes kept in the log per namespace: a snapshot further behind than this rebuilds. */
export const CHANGES_KEPT = 1000;
/** A change naming more keys than this is logged as touching the whole namespace. */
const KEYS_LOGGED = 1000;

/** A revision's parts: the namespace's creation time and its write count; null for another form. */
export function revisionParts(revision: string | null): { createdAt: number; n: number } | null {
  const match = revision === null ? null : /^(\d+):(\d+)$/.exec(revision);
  return match ? { createdAt: Number(match[1]), n: Number(match[2]) } : null;
}

/**
 * Records a transaction's changes in `change_log`, in that transaction (transaction.ts), for the
 * snapshot caches of other processes (evaluation.ts `changesSince`). A namespace's creation is
 * not logged (a cache without it rebuilds anyway); its deletion drops its log.
 */
export async function logChanges(db: Db, changes: Iterable<Change>): Promise<void> {
  for (const change of changes) {
    if (change.after === null) {
      await db.deleteFrom('change_log').where('namespace_key', '=', change.ns).execute();
      continue;
    }
    const from = revisionParts(change.before);
    const to = revisionParts(change.after);
    if (!from || !to || from.createdAt !== to.createdAt) continue;
    const whole = change.whole || change.flags.length + change.segments.length > KEYS_LOGGED;
    await db
      .insertInto('change_log')
      .values({
        namespace_key: change.ns,
        namespace_created_at: to.createdAt,
        revision_from: from.n,
        revision_to: to.n,
        flags: JSON.stringify(whole ? [] : [...new Set(change.flags)]),
        segments: JSON.stringify(whole ? [] : [...new Set(change.segments)]),
        whole: whole ? 1 : 0,
      })
      .execute();
    if (to.n > CHANGES_KEPT) {
      // One row a write once the log is full: the table stays bounded without a cleanup job.
      await db.deleteFrom('change_log').where('namespace_key', '=', change.ns).where('revision_to', '<=', to.n - CHANGES_KEPT).execute();
    }
  }
}
