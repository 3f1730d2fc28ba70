export { SnapshotCache, type SnapshotCacheOptions } from './cache';
