import type { Registry } from 'prom-client';

/**
 * Counters and histograms for the hot path. prom-client hashes the label set on every
 * increment (≈1–2 µs each); these keep plain numbers per series, found by a key the caller
 * builds, and hand Prometheus the totals only when scraped. Registered into a prom-client
 * Registry as custom metrics, so they render like any other.
 */
type Labels = Record<string, string>;

interface Value {
  labels: Labels;
  value: number;
  metricName?: string;
}

function register(registry: Registry, name: string, help: string, type: 'counter' | 'histogram', values: () => Value[]): void {
  registry.registerMetric({
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
  } as never);
}

export class TallyCounter {
  private readonly series = new Map<string, { labels: Labels; value: number }>();

  constructor(registry: Registry, name: string, help: string) {
    register(registry, name, help, 'counter', () => [...this.series.values()].map((s) => ({ labels: s.labels, value: s.value })));
  }

  /** The series for `key`, created with `labels()` the first time. */
  seriesFor(key: string, labels: () => Labels): { value: number } {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels: labels(), value: 0 }));
    return s;
  }

  has(key: string): boolean {
    return this.series.has(key);
  }

  get size(): number {
    return this.series.size;
  }
}

export interface HistogramSeries {
  count: number;
  sum: number;
  /** Per-bucket (not cumulative) counts; the last slot is +Inf. */
  buckets: number[];
}

export class TallyHistogram {
  private readonly series = new Map<string, { labels: Labels } & HistogramSeries>();

  constructor(
    registry: Registry,
    private readonly name: string,
    help: string,
    private readonly bounds: number[],
  ) {
    register(registry, name, help, 'histogram', () => this.values());
  }

  /** The series for `key`, created with `labels()` the first time. */
  seriesFor(key: string, labels: () => Labels): HistogramSeries {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels: labels(), count: 0, sum: 0, buckets: new Array<number>(this.bounds.length + 1).fill(0) }));
    return s;
  }

  observe(s: HistogramSeries, value: number): void {
    s.count++;
    s.sum += value;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    s.buckets[i]++;
  }

  private values(): Value[] {
    const out: Value[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += s.buckets[i];
        out.push({ labels: { ...s.labels, le: String(bound) }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      out.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` });
      out.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      out.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return out;
  }
}
