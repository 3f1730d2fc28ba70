export { buildApp, type AppDeps, type SignInServices } from './app';
export { HealthState } from './health';
export { environmentSources, singleSource, type FlagSource, type FlagSources } from './sources';
export { drainServer, KEEP_ALIVE_GRACE_MS, type DrainReport } from './drain';
export { DeniedAttempts, type DeniedAttempt } from './denied-attempts';
export type { Authorization } from './auth-gate';
