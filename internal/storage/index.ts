export type * from './types';
export { openDatabase, storeFor, migrate, pendingMigrations, prepareSchema, PendingMigrationsError } from './sql';
export type { Connection } from './sql';
export { DatabaseBreaker } from './sql';
export { readOnlyWrites } from './read-only';
