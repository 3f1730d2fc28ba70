import { Counter, Registry } from 'prom-client';

/**
 * Pennon's Prometheus registry, served at `/metrics`. Names follow Flipt's where Flipt has the
 * same measurement, so existing dashboards keep working.
 */
export const registry = new Registry();

const cacheLabel = ['cache'] as const;

export const cacheMetrics = {
  hits: new Counter({ name: 'flipt_cache_hit_total', help: 'Cache lookups that found an entry', labelNames: cacheLabel, registers: [registry] }),
  misses: new Counter({ name: 'flipt_cache_miss_total', help: 'Cache lookups that found nothing', labelNames: cacheLabel, registers: [registry] }),
  errors: new Counter({
    name: 'flipt_cache_error_total',
    help: 'Cache operations that failed (the request went on without the cache)',
    labelNames: cacheLabel,
    registers: [registry],
  }),
};
