export { createLogger, silentLogger } from './logger';
export { registry, cacheMetrics } from './metrics';
