export { startService, type RunningService } from './serve';
export { openStore, openPreparedStore, openExistingStore, databaseUrl, type OpenedStore } from './database';
