export { startService, type RunningService } from './serve';
export { openStore, openPreparedStore, databaseUrl, type OpenedStore } from './database';
