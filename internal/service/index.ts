export { compose, type DatabaseMode, type DatabaseServices, type Services, type StartStep, type TokenServices } from './compose';
export { startService, StartCancelled, type RunningService, type StartOptions } from './serve';
export { databaseUrl } from './database';
export { superviseWorkers } from './cluster';
export { workerRole, type WorkerRole } from './cluster-worker';
