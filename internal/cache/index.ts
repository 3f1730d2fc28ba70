export type { Cache, Broadcast } from './types';
export { MemoryCache } from './memory';
export { RedisCache, redisOptions } from './redis';
export { SharedSnapshotSource } from './snapshot-source';
export { linkInstances } from './instances';
