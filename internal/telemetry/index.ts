export { createLogger, silentLogger } from './logger';
export { Metrics, DEFAULT_SERIES_LIMITS, type CacheCounters, type PoolStats, type SeriesLimits } from './metrics';
export { onEvaluation, type EvaluationEvent } from './evaluations';
export { mergeScrapes } from './merge-scrapes';
export { AuditMetrics, sinkLabel } from './audit-metrics';
