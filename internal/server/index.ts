export { buildApp, type AppDeps } from './app';
export { HealthState } from './health';
