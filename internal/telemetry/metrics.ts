import { setImmediate as nextTurn } from 'node:timers/promises';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AuditMetrics } from './audit-metrics';
import { AuthMetrics } from './auth-metrics';
import { onEvaluation, type EvaluationEvent } from './evaluations';
import { TallyCounter, TallyHistogram, type Family, type HistogramSeries } from './tally';

/**
 * Pennon's Prometheus metrics, one set per service. Names are `<namespace>_…` (default
 * `service`, `metrics.namespace: flipt` gives Flipt's names, so Flipt dashboards keep working);
 * the process and Node.js default metrics keep their standard names, as Go's do in Flipt.
 * Evaluation and HTTP metrics are tallies (tally.ts): recording one costs a map lookup and a few
 * additions, not prom-client's label hashing.
 *
 * Cardinality is bounded whatever clients send: only flags that exist get series (a lookup
 * that fails — no such namespace or flag — is counted under namespace and flag `unknown`), at
 * most `maxNamespaceSeries` namespaces get their own label (later ones: namespace and flag
 * `__other__`) and at most `maxFlagSeries` namespace/flag pairs (later ones: flag `__other__`
 * in their namespace).
 */

export interface CacheCounters {
  hit(cache: string): void;
  miss(cache: string): void;
  error(cache: string): void;
}

export interface SeriesLimits {
  /** Past this many distinct namespace/flag pairs, new ones are counted under flag "__other__" (metrics.max_flag_series). */
  maxFlagSeries: number;
  /** Past this many distinct namespaces, new ones are counted under namespace and flag "__other__" (metrics.max_namespace_series). */
  maxNamespaceSeries: number;
}

/**
 * 4,000 flags' series (requests, and on average two outcomes each) keep a scrape under 2 MB
 * however many flags an instance holds (issue 16: 100,000 flags' series were 18.5 MB).
 */
export const DEFAULT_SERIES_LIMITS: SeriesLimits = { maxFlagSeries: 4_000, maxNamespaceSeries: 1_000 };

/** Outcome series allowed per flag series, on average (results_total ≤ this × max_flag_series). */
const RESULTS_PER_FLAG = 2;

export interface MetricsOptions extends Partial<SeriesLimits> {
  defaultMetrics?: boolean;
  /**
   * Evaluation latency per flag (Flipt's shape: 17 lines per flag) instead of per namespace
   * (metrics.per_flag_latency). Off by default: per-flag latency is most of a large
   * instance's scrape, and a flag's latency is its namespace's — the evaluator's cost hardly
   * depends on which flag it reads.
   */
  perFlagLatency?: boolean;
}

/** The label of every evaluation whose flag could not be looked up: what clients send names no series. */
export const UNKNOWN = 'unknown';
const OTHER = '__other__';

/** A scrape's slices: small enough (~1 ms to build) that an evaluation never waits long behind one. */
const SLICE_CHARS = 16 * 1024;

/** OpenTelemetry's default histogram buckets, which Flipt's evaluation latency uses (ms). */
const EVALUATION_BUCKETS_MS = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];
/** Git fetches after a webhook: from a local remote's milliseconds to a slow provider's tens of seconds. */
const WEBHOOK_SYNC_BUCKETS_S = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const HTTP_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

interface FlagSeries {
  key: string;
  /** The labels, as rendered: the requested names, or `__other__` / `unknown`. */
  namespace: string;
  flag: string;
  requests: { value: number };
  errors: { value: number } | null;
  /** The flag's latency histogram, or (by default) its namespace's, shared by its flags. */
  latency: HistogramSeries;
  /** The last outcome and its counter: most evaluations of a flag repeat it, and then no key is built. */
  last: { type: string; match: boolean; reason: string; value: string; segments: readonly string[]; counter: { value: number } } | null;
}

interface TimedSeries {
  count: { value: number };
  duration: HistogramSeries;
}

/** Requests counted and timed by a bounded key (HTTP by route pattern and status, gRPC by method and code). */
class TimedRequests {
  private readonly series = new Map<string, TimedSeries>();

  constructor(
    readonly count: TallyCounter,
    readonly duration: TallyHistogram,
  ) {}

  /** The series of `key`, if it has been seen (called per request: nothing is allocated). */
  get(key: string): TimedSeries | undefined {
    return this.series.get(key);
  }

  add(key: string, labels: Record<string, string>): TimedSeries {
    const series = { count: this.count.seriesFor(key, () => labels), duration: this.duration.seriesFor(key, () => labels) };
    this.series.set(key, series);
    return series;
  }

  record(series: TimedSeries, seconds: number): void {
    series.count.value++;
    this.duration.observe(series.duration, seconds);
  }
}

export class Metrics implements CacheCounters {
  /** prom-client's metrics (rare events, process and Node.js); the tallies render beside them. */
  private readonly registry = new Registry();
  readonly contentType = this.registry.contentType;
  private readonly limits: SeriesLimits;
  private readonly tallies: Family[];
  private readonly cacheHits: Counter<'cache'>;
  private readonly cacheMisses: Counter<'cache'>;
  private readonly cacheErrors: Counter<'cache'>;
  private readonly serverErrors: Counter;
  // Inbound Git webhooks: rare, so plain prom-client series.
  private readonly webhookRequests: Counter<'environment' | 'scm' | 'result'>;
  private readonly webhookFetchErrors: Counter<'environment' | 'scm'>;
  private readonly webhookSyncDuration: Histogram<'environment' | 'scm'>;
  private readonly gitSyncErrors: Counter<'environment' | 'stage'>;
  // Requests refused for want of a role: rare, bounded labels (the route table's operations, four roles).
  private readonly authorizationDenials: Counter<'operation' | 'role'>;
  // The hot path's metrics: plain numbers per series (see tally.ts).
  private readonly http: TimedRequests;
  private readonly grpc: TimedRequests;
  private readonly evalRequests: TallyCounter;
  private readonly evalResults: TallyCounter;
  private readonly evalErrors: TallyCounter;
  private readonly evalLatency: TallyHistogram;
  /** namespace → flag → series (two lookups, no key built per evaluation). */
  private readonly flagSeries = new Map<string, Map<string, FlagSeries>>();
  private flagSeriesCount = 0;
  /** Every failed lookup's series (namespace and flag `unknown`), made at the first one. */
  private unknownSeries: FlagSeries | null = null;

  private readonly perFlagLatency: boolean;
  /** The audit trail's events written, deliveries and outbox backlog (audit-metrics.ts). */
  readonly audit: AuditMetrics;
  /** Failed authentication, the rate limit's refusals, token lookups (auth-metrics.ts). */
  readonly auth: AuthMetrics;
  private combined: (() => Promise<string>) | null = null;

  constructor(readonly namespace = 'service', options: MetricsOptions = {}) {
    this.limits = { maxFlagSeries: options.maxFlagSeries ?? DEFAULT_SERIES_LIMITS.maxFlagSeries, maxNamespaceSeries: options.maxNamespaceSeries ?? DEFAULT_SERIES_LIMITS.maxNamespaceSeries };
    this.perFlagLatency = options.perFlagLatency ?? false;
    const registers = [this.registry];
    const n = (name: string) => `${namespace}_${name}`;
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.cacheHits = new Counter({ name: n('cache_hit_total'), help: 'Cache lookups that found an entry', labelNames: ['cache'], registers });
    this.cacheMisses = new Counter({ name: n('cache_miss_total'), help: 'Cache lookups that found nothing', labelNames: ['cache'], registers });
    this.cacheErrors = new Counter({ name: n('cache_error_total'), help: 'Cache operations that failed (served without the cache)', labelNames: ['cache'], registers });
    this.serverErrors = new Counter({ name: n('server_errors_total'), help: 'Requests answered with an error status', registers });
    this.webhookRequests = new Counter({ name: n('incoming_webhook_requests_total'), help: 'Inbound Git webhook requests by result (accepted, ignored, unauthorized, not_found, invalid)', labelNames: ['environment', 'scm', 'result'], registers });
    this.webhookFetchErrors = new Counter({ name: n('incoming_webhook_fetch_errors_total'), help: 'Git fetches scheduled by a webhook that failed', labelNames: ['environment', 'scm'], registers });
    this.webhookSyncDuration = new Histogram({ name: n('incoming_webhook_sync_duration_seconds'), help: 'Duration of the Git sync scheduled by a webhook', labelNames: ['environment', 'scm'], buckets: WEBHOOK_SYNC_BUCKETS_S, registers });
    this.authorizationDenials = new Counter({ name: n('authorization_denied_total'), help: 'Requests refused for want of a role, by operation and the role the caller held where it asked (none: no role)', labelNames: ['operation', 'role'], registers });
    this.gitSyncErrors = new Counter({ name: n('git_sync_errors_total'), help: 'Git environment updates that failed: fetch (the remote) or build (invalid flag files; the last good snapshot stays in service)', labelNames: ['environment', 'stage'], registers });
    this.http = new TimedRequests(
      new TallyCounter(n('http_requests_total'), 'HTTP requests by route pattern'),
      new TallyHistogram(n('http_request_duration_seconds'), 'HTTP request duration by route pattern', HTTP_BUCKETS_S),
    );
    this.evalRequests = new TallyCounter(n('evaluations_requests_total'), 'Flag evaluations');
    this.evalResults = new TallyCounter(n('evaluations_results_total'), 'Successful flag evaluations by outcome');
    this.evalErrors = new TallyCounter(n('evaluations_errors_total'), 'Flag evaluations that failed');
    this.evalLatency = new TallyHistogram(n('evaluations_latency_milliseconds'), this.perFlagLatency ? 'Flag evaluation latency' : 'Flag evaluation latency by namespace', EVALUATION_BUCKETS_MS);
    // go-grpc-prometheus's names and labels, which Flipt's dashboards read, under our namespace.
    this.grpc = new TimedRequests(
      new TallyCounter(n('grpc_server_handled_total'), 'gRPC calls completed, by method and status code'),
      new TallyHistogram(n('grpc_server_handling_seconds'), 'gRPC call duration by method', HTTP_BUCKETS_S),
    );
    this.audit = new AuditMetrics(this.registry, n);
    this.auth = new AuthMetrics(this.registry, n);
    this.tallies = [this.http.count, this.http.duration, this.grpc.count, this.grpc.duration, this.evalRequests, this.evalResults, this.evalErrors, this.evalLatency];
  }

  /**
   * A scrape in Prometheus' text format, in slices: prom-client's families one by one, then
   * the tallies a slice at a time, the event loop free between slices — with 10,000 flags a
   * scrape is ~200,000 lines, and evaluations must not wait for all of them. Stops when the
   * consumer does (a scraper that hangs up).
   */
  async *scrape(): AsyncGenerator<string> {
    // prom-client's families one at a time: some default metrics read /proc synchronously, and
    // all of them at once held the loop 1–3 ms.
    for (const metric of this.registry.getMetricsAsArray()) {
      const family = await this.registry.getSingleMetricAsString(metric.name);
      yield `${family}\n\n`;
      await nextTurn();
    }
    for (const tally of this.tallies) {
      for (const slice of tally.render(SLICE_CHARS)) {
        yield slice;
        await nextTurn();
      }
    }
  }

  /**
   * In a cluster of workers (`server.workers` > 1), where a scrape of any worker answers for all
   * of them: the source of the combined text (service/cluster.ts asks every worker for `text()`
   * and merges them with merge-scrapes.ts, in the supervisor, off the workers' event loops).
   */
  combineWith(source: () => Promise<string>): void {
    this.combined = source;
  }

  /** What `/metrics` answers: this process's scrape, or every worker's combined. */
  async *served(): AsyncGenerator<string> {
    if (!this.combined) return yield* this.scrape();
    const text = await this.combined();
    for (let at = 0; at < text.length; at += SLICE_CHARS) yield text.slice(at, at + SLICE_CHARS);
  }

  /** The whole scrape as one string (tests, small registries). */
  async text(): Promise<string> {
    let text = '';
    for await (const slice of this.scrape()) text += slice;
    return text;
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

  /** One inbound webhook request (unknown environments: environment and scm "unknown", result not_found). */
  webhookRequest(environment: string, scm: string, result: string): void {
    this.webhookRequests.inc({ environment, scm, result });
  }

  /** A request refused for want of a role: its operation (the route table's name, or a flagd method's) and the role held. */
  authorizationDenied(operation: string, role: string): void {
    this.authorizationDenials.inc({ operation, role });
  }

  /** A Git fetch (poll or webhook) that failed, or a commit whose flag files did not build; per environment. */
  gitSyncError(environment: string, stage: 'fetch' | 'build'): void {
    this.gitSyncErrors.inc({ environment, stage });
  }

  /** The sync a webhook scheduled finished: its duration, and whether the fetch failed. */
  webhookSync(environment: string, scm: string, seconds: number, failed: boolean): void {
    this.webhookSyncDuration.observe({ environment, scm }, seconds);
    if (failed) this.webhookFetchErrors.inc({ environment, scm });
  }

  /** Starts recording every evaluation (see evaluations.ts); returns the unsubscribe. */
  recordEvaluations(): () => void {
    return onEvaluation((event) => this.evaluation(event));
  }

  evaluation(event: EvaluationEvent): void {
    const series = event.lookupFailed ? this.unknown() : this.seriesFor(event.namespace, event.flag);
    series.requests.value++;
    this.evalLatency.observe(series.latency, event.durationMs);
    const r = event.result;
    if (!r) {
      series.errors ??= this.evalErrors.seriesFor(series.key, () => ({ namespace: series.namespace, flag: series.flag }));
      series.errors.value++;
      return;
    }
    const last = series.last;
    if (last && last.match === r.match && last.reason === r.reason && last.value === r.value && last.segments === r.segments && last.type === event.type) {
      last.counter.value++;
      return;
    }
    const segment = r.segments.length === 0 ? '' : r.segments.length === 1 ? r.segments[0] : r.segments.join(',');
    const resultKey = `${series.key}\u0000${event.type}\u0000${r.match}\u0000${segment}\u0000${r.reason}\u0000${r.value}`;
    const ns = series.namespace;
    // Outcomes per flag are few (variants × reasons × segments); still, keep the series bounded:
    // past the cap, a new outcome is counted under its namespace's flag __other__ with no detail.
    if (!this.evalResults.has(resultKey) && this.evalResults.size >= this.limits.maxFlagSeries * RESULTS_PER_FLAG) {
      const type = event.type;
      this.evalResults.seriesFor(`${ns}\u0000${OTHER}\u0000${type}`, () => ({ namespace: ns, flag: OTHER, match: '', segment: '', reason: '', value: '', type })).value++;
      return;
    }
    const flag = series.flag;
    const counter = this.evalResults.seriesFor(resultKey, (): Record<string, string> =>
      event.type === 'boolean'
        ? { namespace: ns, flag, value: r.value, reason: r.reason, type: 'boolean' }
        : { namespace: ns, flag, match: String(r.match), segment, reason: r.reason, value: r.value, type: 'variant' },
    );
    series.last = { type: event.type, match: r.match, reason: r.reason, value: r.value, segments: r.segments, counter };
    counter.value++;
  }

  /** The series of a flag that exists (the evaluator had it). */
  private seriesFor(requestedNamespace: string, requested: string): FlagSeries {
    let flags = this.flagSeries.get(requestedNamespace);
    if (!flags) {
      // Past the namespace bound, new namespaces share one series: namespace and flag __other__.
      if (this.flagSeries.size >= this.limits.maxNamespaceSeries) return this.otherNamespaces();
      this.flagSeries.set(requestedNamespace, (flags = new Map()));
    }
    const series = flags.get(requested);
    if (series) return series;
    // Past the pair bound, new flags share one series per namespace (the requested key is not kept).
    const flag = this.flagSeriesCount >= this.limits.maxFlagSeries ? OTHER : requested;
    return flags.get(flag) ?? this.newSeries(flags, requestedNamespace, flag);
  }

  private otherNamespaces(): FlagSeries {
    let flags = this.flagSeries.get(OTHER);
    if (!flags) this.flagSeries.set(OTHER, (flags = new Map()));
    return flags.get(OTHER) ?? this.newSeries(flags, OTHER, OTHER);
  }

  private unknown(): FlagSeries {
    return (this.unknownSeries ??= this.newSeries(null, UNKNOWN, UNKNOWN));
  }

  private newSeries(flags: Map<string, FlagSeries> | null, namespace: string, flag: string): FlagSeries {
    const key = `${namespace}\u0000${flag}`;
    const labels = () => ({ namespace, flag });
    const latency = this.perFlagLatency ? this.evalLatency.seriesFor(key, labels) : this.evalLatency.seriesFor(namespace, () => ({ namespace }));
    const series: FlagSeries = { key, namespace, flag, requests: this.evalRequests.seriesFor(key, labels), errors: null, latency, last: null };
    if (flags) {
      flags.set(flag, series);
      this.flagSeriesCount++;
    }
    return series;
  }

  /** One HTTP request, by route pattern (never the raw path: cardinality stays bounded). */
  request(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    this.http.record(this.http.get(key) ?? this.http.add(key, { method, route, status: String(status) }), seconds);
    if (status >= 400) this.serverErrors.inc(); // Flipt counts every request answered with an error
  }

  /**
   * One gRPC call, by its service, method (both from the .proto files: bounded) and status code
   * name; a server stream (flagd's EventStream) when it ends, its whole life as its duration.
   */
  grpcCall(service: string, method: string, code: string, seconds: number, type: 'unary' | 'server_stream' = 'unary'): void {
    const key = `${service}/${method} ${code}`;
    this.grpc.record(this.grpc.get(key) ?? this.grpc.add(key, { grpc_type: type, grpc_service: service, grpc_method: method, grpc_code: code }), seconds);
    // A stream's client leaving is how a stream ends, not an error.
    if (code !== 'OK' && !(type === 'server_stream' && code === 'Canceled')) this.serverErrors.inc();
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

  /** Live streams held (every kind) and the namespaces they follow, read at scrape time. */
  trackLiveStreams(stats: () => { streams: number; watches: number }): void {
    const n = (name: string) => `${this.namespace}_${name}`;
    new Gauge({
      name: n('live_streams'),
      help: 'Live streams held: OFREP event streams, flagd EventStreams, Flipt v2 snapshot streams and the dashboard\'s (streams.max bounds them)',
      registers: [this.registry],
      collect() {
        this.set(stats().streams);
      },
    });
    new Gauge({
      name: n('live_watched_namespaces'),
      help: 'Flag source and namespace pairs that live streams follow (one watch each, however many streams)',
      registers: [this.registry],
      collect() {
        this.set(stats().watches);
      },
    });
  }
}
