export { createLogger, silentLogger } from './logger';
export { Metrics, type CacheCounters, type PoolStats } from './metrics';
export { onEvaluation, type EvaluationEvent } from './evaluations';
