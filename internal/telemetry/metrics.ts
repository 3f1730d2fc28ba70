import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { onEvaluation, type EvaluationEvent } from './evaluations';

/**
 * Pennon's Prometheus metrics, one set per service. Names are `<namespace>_…` (default
 * `service`, `metrics.namespace: flipt` gives Flipt's names, so Flipt dashboards keep working);
 * the process and Node.js default metrics keep their standard names, as Go's do in Flipt.
 * Label children are cached, so that recording an evaluation costs a few map lookups.
 */

export interface CacheCounters {
  hit(cache: string): void;
  miss(cache: string): void;
  error(cache: string): void;
}

/** Past this many distinct namespace/flag pairs, new ones are counted under flag "__other__". */
const MAX_FLAG_SERIES = 10_000;

/** OpenTelemetry's default histogram buckets, which Flipt's evaluation latency uses (ms). */
const EVALUATION_BUCKETS_MS = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];
const HTTP_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export class Metrics implements CacheCounters {
  readonly registry = new Registry();
  private readonly cacheHits: Counter<'cache'>;
  private readonly cacheMisses: Counter<'cache'>;
  private readonly cacheErrors: Counter<'cache'>;
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly serverErrors: Counter;
  private readonly evalRequests: Counter<'namespace' | 'flag'>;
  private readonly evalResults: Counter<'namespace' | 'flag' | 'match' | 'segment' | 'reason' | 'value' | 'type'>;
  private readonly evalErrors: Counter<'namespace' | 'flag'>;
  private readonly evalLatency: Histogram<'namespace' | 'flag'>;
  private readonly flagSeries = new Map<string, { requests: ReturnType<Counter<'namespace' | 'flag'>['labels']>; latency: ReturnType<Histogram<'namespace' | 'flag'>['labels']> }>();
  private readonly resultSeries = new Map<string, ReturnType<Counter<'namespace' | 'flag' | 'match' | 'segment' | 'reason' | 'value' | 'type'>['labels']>>();
  private readonly httpSeries = new Map<string, { count: ReturnType<Counter<'method' | 'route' | 'status'>['labels']>; duration: ReturnType<Histogram<'method' | 'route' | 'status'>['labels']> }>();

  constructor(readonly namespace = 'service', options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    const n = (name: string) => `${namespace}_${name}`;
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.cacheHits = new Counter({ name: n('cache_hit_total'), help: 'Cache lookups that found an entry', labelNames: ['cache'], registers });
    this.cacheMisses = new Counter({ name: n('cache_miss_total'), help: 'Cache lookups that found nothing', labelNames: ['cache'], registers });
    this.cacheErrors = new Counter({ name: n('cache_error_total'), help: 'Cache operations that failed (served without the cache)', labelNames: ['cache'], registers });
    this.httpRequests = new Counter({ name: n('http_requests_total'), help: 'HTTP requests by route pattern', labelNames: ['method', 'route', 'status'], registers });
    this.httpDuration = new Histogram({
      name: n('http_request_duration_seconds'),
      help: 'HTTP request duration by route pattern',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS_S,
      registers,
    });
    this.serverErrors = new Counter({ name: n('server_errors_total'), help: 'Requests answered with an error status', registers });
    this.evalRequests = new Counter({ name: n('evaluations_requests_total'), help: 'Flag evaluations', labelNames: ['namespace', 'flag'], registers });
    this.evalResults = new Counter({
      name: n('evaluations_results_total'),
      help: 'Successful flag evaluations by outcome',
      labelNames: ['namespace', 'flag', 'match', 'segment', 'reason', 'value', 'type'],
      registers,
    });
    this.evalErrors = new Counter({ name: n('evaluations_errors_total'), help: 'Flag evaluations that failed', labelNames: ['namespace', 'flag'], registers });
    this.evalLatency = new Histogram({
      name: n('evaluations_latency_milliseconds'),
      help: 'Flag evaluation latency',
      labelNames: ['namespace', 'flag'],
      buckets: EVALUATION_BUCKETS_MS,
      registers,
    });
  }

  hit(cache: string): void {
    this.cacheHits.inc({ cache });
  }
  miss(cache: string): void {
    this.cacheMisses.inc({ cache });
  }
  error(cache: string): void {
    this.cacheErrors.inc({ cache });
  }

  /** Starts recording every evaluation (see evaluations.ts); returns the unsubscribe. */
  recordEvaluations(): () => void {
    return onEvaluation((event) => this.evaluation(event));
  }

  evaluation(event: EvaluationEvent): void {
    let flag = event.flag;
    let key = `${event.namespace}\u0000${flag}`;
    let series = this.flagSeries.get(key);
    if (!series) {
      if (this.flagSeries.size >= MAX_FLAG_SERIES) {
        flag = '__other__';
        key = `${event.namespace}\u0000${flag}`;
        series = this.flagSeries.get(key);
      }
      if (!series) {
        const labels = { namespace: event.namespace, flag };
        series = { requests: this.evalRequests.labels(labels), latency: this.evalLatency.labels(labels) };
        this.flagSeries.set(key, series);
      }
    }
    series.requests.inc();
    series.latency.observe(event.durationMs);
    const r = event.result;
    if (!r) {
      this.evalErrors.inc({ namespace: event.namespace, flag });
      return;
    }
    const segment = r.segments.join(',');
    const resultKey = `${key}\u0000${event.type}\u0000${r.match}\u0000${segment}\u0000${r.reason}\u0000${r.value}`;
    let result = this.resultSeries.get(resultKey);
    if (!result) {
      result =
        event.type === 'boolean'
          ? this.evalResults.labels({ namespace: event.namespace, flag, value: r.value, reason: r.reason, type: 'boolean' })
          : this.evalResults.labels({ namespace: event.namespace, flag, match: String(r.match), segment, reason: r.reason, value: r.value, type: 'variant' });
      // Variant values come from a bounded set per flag; still, keep the map from growing for ever.
      if (this.resultSeries.size < MAX_FLAG_SERIES * 4) this.resultSeries.set(resultKey, result);
    }
    result.inc();
  }

  /** One HTTP request, by route pattern (never the raw path: cardinality stays bounded). */
  request(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let series = this.httpSeries.get(key);
    if (!series) {
      const labels = { method, route, status: String(status) };
      series = { count: this.httpRequests.labels(labels), duration: this.httpDuration.labels(labels) };
      this.httpSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
    if (status >= 400) this.serverErrors.inc(); // Flipt counts every request answered with an error
  }

  /** Database pool gauges, read at scrape time. */
  trackPool(stats: () => PoolStats | null): void {
    const n = (name: string) => `${this.namespace}_${name}`;
    new Gauge({
      name: n('db_pool_connections'),
      help: 'Database pool connections by state',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const s = stats();
        if (!s) return;
        this.set({ state: 'total' }, s.total);
        this.set({ state: 'idle' }, s.idle);
        this.set({ state: 'in_use' }, s.total - s.idle);
        this.set({ state: 'waiting' }, s.waiting);
      },
    });
  }
}
