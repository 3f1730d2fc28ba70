export { SnapshotCache, type SnapshotCacheOptions } from './cache';
export { changedFlags, type SnapshotUpdate, type SnapshotListener, type WatchableSnapshots } from './updates';
import type { SnapshotCache } from './cache';

/** What evaluation routes read: the database's SnapshotCache, or a Git environment's snapshots. */
export type Snapshots = Pick<SnapshotCache, 'get' | 'flag' | 'flagNow' | 'watch' | 'settle' | 'modifiedAt'>;
