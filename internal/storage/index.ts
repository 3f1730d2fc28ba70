export type * from './types';
export { openDatabase, storeFor, migrate, pendingMigrations, prepareSchema, PendingMigrationsError, openFliptDatabase, readFliptV1, copyFliptV1 } from './sql';
export type { CopyCounts, FliptV1Contents, AuditSinkSelection } from './sql';
export type { Connection } from './sql';
export { DatabaseBreaker } from './sql';
export { readOnlyWrites } from './read-only';
