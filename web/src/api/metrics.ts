import { CLIENT_HEADERS } from './client-header';
import { ApiError, errorFrom } from './errors';

/**
 * `GET /metrics` (Prometheus text format) and what the flag page's Evaluations section reads from
 * it. Pennon keeps no analytics store: the evaluation counters this instance exports since it
 * started are what there is (docs/DECISIONS.md, Dashboard). The parser is tolerant — comments,
 * blank lines, escaped label values, timestamps, lines it cannot read are skipped — and pure
 * (no DOM), so the unit tests run it on a real scrape.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  samples: Sample[];
  /** Metric families declared by `# TYPE` (declared even before they have a sample). */
  types: Map<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/**
 * Parses Prometheus' text exposition format. `keep(line)` may skip lines cheaply before they are
 * parsed (a scrape with thousands of flags is tens of thousands of lines; a flag needs a few).
 */
export function parsePrometheus(text: string, keep?: (line: string) => boolean): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^#\s*TYPE\s+([a-zA-Z_:][a-zA-Z0-9_:]*)\s+(\w+)/.exec(line);
      if (type) types.set(type[1], type[2]);
      continue;
    }
    if (keep && !keep(line)) continue;
    const sample = parseSample(line);
    if (sample) samples.push(sample);
  }
  return { samples, types };
}

/** One sample line (`name{a="x",b="y\"z"} 3 1700000000000`), or null when it is not one. */
export function parseSample(line: string): Sample | null {
  const name = NAME.exec(line);
  if (!name) return null;
  let i = name[0].length;
  const labels: Record<string, string> = {};
  i = skipSpaces(line, i);
  if (line[i] === '{') {
    i++;
    for (;;) {
      i = skipSpaces(line, i);
      if (line[i] === '}') {
        i++;
        break;
      }
      const label = LABEL_NAME.exec(line.slice(i));
      if (!label) return null;
      i = skipSpaces(line, i + label[0].length);
      if (line[i] !== '=') return null;
      i = skipSpaces(line, i + 1);
      if (line[i] !== '"') return null;
      const value = readQuoted(line, i + 1);
      if (!value) return null;
      labels[label[0]] = value.text;
      i = skipSpaces(line, value.end);
      if (line[i] === ',') i++;
      else if (line[i] !== '}') return null;
    }
  }
  const rest = line.slice(i).trim().split(/\s+/);
  const value = parseValue(rest[0] ?? '');
  if (value === null) return null;
  return { name: name[0], labels, value };
}

function skipSpaces(line: string, i: number): number {
  while (line[i] === ' ' || line[i] === '\t') i++;
  return i;
}

/** A label value after its opening quote: `\\`, `\"` and `\n` unescaped; an unknown escape kept as written. */
function readQuoted(line: string, start: number): { text: string; end: number } | null {
  let text = '';
  for (let i = start; i < line.length; i++) {
    const c = line[i];
    if (c === '"') return { text, end: i + 1 };
    if (c === '\\' && i + 1 < line.length) {
      const next = line[++i];
      text += next === 'n' ? '\n' : next === '\\' || next === '"' ? next : `\\${next}`;
    } else {
      text += c;
    }
  }
  return null; // no closing quote
}

function parseValue(text: string): number | null {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (text === '' || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return null;
  return Number(text);
}

/** The label value as the text format writes it (what a sample line holds between quotes). */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

const REQUESTS = '_evaluations_requests_total';

/**
 * The metric prefix (`metrics.namespace`, `service` by default): the name before
 * `_evaluations_requests_total`, declared or sampled. Null when no such family is there; several
 * candidates (a proxy merging two exporters) → all of them, for the caller to settle.
 */
export function metricPrefixes(scrape: Scrape): string[] {
  const found = new Set<string>();
  for (const name of scrape.types.keys()) if (name.endsWith(REQUESTS)) found.add(name.slice(0, -REQUESTS.length));
  for (const s of scrape.samples) if (s.name.endsWith(REQUESTS)) found.add(s.name.slice(0, -REQUESTS.length));
  return [...found];
}

export interface Outcome {
  type: string;
  /** The variant key, or `true`/`false` for a boolean flag; '' when a variant flag matched nothing. */
  value: string;
  reason: string;
  segment: string;
  count: number;
}

export interface LatencyBucket {
  /** Upper bound in ms (Infinity for the last). */
  le: number;
  /** Evaluations in this bucket alone (not cumulative). */
  count: number;
}

export interface FlagEvaluations {
  requests: number;
  errors: number;
  outcomes: Outcome[];
  /**
   * The flag's latency when the instance keeps it per flag (metrics.per_flag_latency), else its
   * namespace's (`scope` says which).
   */
  latency: { count: number; sumMs: number; buckets: LatencyBucket[]; scope: 'flag' | 'namespace' };
  /**
   * Evaluations in this namespace counted under flag `__other__` (past metrics.max_flag_series
   * namespace/flag pairs new ones share that series): some of them may be this flag's.
   */
  other: number;
  /** `process_start_time_seconds` (ms since the epoch), when the instance exports it. */
  startedAt: number | null;
}

/** The `namespace` label is the namespace as the request named it: '' means `default`. */
export function namespaceMatches(label: string | undefined, ns: string): boolean {
  return label === ns || (label === '' && ns === 'default');
}

/**
 * This flag's evaluation series, summed over the spellings of its namespace. `prefix` is the
 * metric prefix (metricPrefixes).
 */
export function flagEvaluations(scrape: Scrape, prefix: string, ns: string, flag: string): FlagEvaluations {
  const out: FlagEvaluations = { requests: 0, errors: 0, outcomes: [], latency: { count: 0, sumMs: 0, buckets: [], scope: 'flag' }, other: 0, startedAt: null };
  const flagLatency = emptyLatency();
  const namespaceLatency = emptyLatency();
  const outcomes = new Map<string, Outcome>();
  const n = (name: string) => `${prefix}_evaluations_${name}`;
  for (const s of scrape.samples) {
    if (s.name === 'process_start_time_seconds') {
      out.startedAt = s.value * 1000;
      continue;
    }
    if (!namespaceMatches(s.labels.namespace, ns)) continue;
    if (s.labels.flag === undefined) {
      addLatency(namespaceLatency, s, n);
      continue;
    }
    if (s.labels.flag !== flag) {
      if (s.labels.flag === '__other__' && s.name === n('requests_total')) out.other += s.value;
      continue;
    }
    switch (s.name) {
      case n('requests_total'):
        out.requests += s.value;
        break;
      case n('errors_total'):
        out.errors += s.value;
        break;
      case n('results_total'): {
        const o = { type: s.labels.type ?? '', value: s.labels.value ?? '', reason: s.labels.reason ?? '', segment: s.labels.segment ?? '' };
        const key = `${o.type}\u0000${o.value}\u0000${o.reason}\u0000${o.segment}`;
        const found = outcomes.get(key);
        if (found) found.count += s.value;
        else outcomes.set(key, { ...o, count: s.value });
        break;
      }
      default:
        addLatency(flagLatency, s, n);
    }
  }
  out.outcomes = [...outcomes.values()];
  const scope = flagLatency.count > 0 || namespaceLatency.count === 0 ? 'flag' : 'namespace';
  const latency = scope === 'flag' ? flagLatency : namespaceLatency;
  out.latency = { count: latency.count, sumMs: latency.sumMs, buckets: perBucket(latency.cumulative), scope };
  return out;
}

interface LatencySums {
  count: number;
  sumMs: number;
  /** Cumulative counts by upper bound, summed over the series read. */
  cumulative: Map<number, number>;
}

function emptyLatency(): LatencySums {
  return { count: 0, sumMs: 0, cumulative: new Map() };
}

function addLatency(into: LatencySums, s: Sample, n: (name: string) => string): void {
  switch (s.name) {
    case n('latency_milliseconds_bucket'): {
      const le = parseValue(s.labels.le ?? '');
      if (le !== null) into.cumulative.set(le, (into.cumulative.get(le) ?? 0) + s.value);
      break;
    }
    case n('latency_milliseconds_sum'):
      into.sumMs += s.value;
      break;
    case n('latency_milliseconds_count'):
      into.count += s.value;
      break;
  }
}

/** Cumulative bucket counts → counts per bucket, by increasing bound. */
function perBucket(cumulative: Map<number, number>): LatencyBucket[] {
  const buckets: LatencyBucket[] = [];
  let below = 0;
  for (const le of [...cumulative.keys()].sort((a, b) => a - b)) {
    const total = cumulative.get(le) ?? 0;
    buckets.push({ le, count: Math.max(0, total - below) });
    below = Math.max(below, total);
  }
  return buckets;
}

/** Counts summed by one field of the outcomes, largest first. */
export function countBy(outcomes: readonly Outcome[], field: 'value' | 'reason' | 'segment'): { key: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o[field], (counts.get(o[field]) ?? 0) + o.count);
  return [...counts].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

/**
 * The smallest bucket bound holding at least `q` of the evaluations (an upper bound: Prometheus'
 * histogram_quantile would interpolate inside the bucket, which the buckets cannot tell).
 */
export function quantileBound(buckets: readonly LatencyBucket[], q: number): number | null {
  const total = buckets.reduce((sum, b) => sum + b.count, 0);
  if (total === 0) return null;
  let seen = 0;
  for (const b of buckets) {
    seen += b.count;
    if (seen >= q * total) return b.le;
  }
  return Infinity;
}

/** Thrown when the instance has no /metrics (404: `metrics.enabled: false`). */
export class MetricsDisabled extends Error {
  constructor() {
    super('This instance does not export metrics (metrics.enabled: false)');
    this.name = 'MetricsDisabled';
  }
}

/**
 * The scrape's text. Public (no token), relative to the page as the API client's paths are, so
 * a dashboard behind a path prefix scrapes its own instance.
 */
export async function fetchMetrics(signal?: AbortSignal): Promise<string> {
  // Never from the HTTP cache (a proxy could add validators). `cache` is typed by the DOM's
  // RequestInit only; the unit tests type-check this file with Node's.
  const init: RequestInit & { cache?: 'no-store' } = { headers: { accept: 'text/plain', ...CLIENT_HEADERS }, cache: 'no-store', signal };
  let res: Response;
  try {
    res = await fetch('metrics', init);
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 0, 'The server could not be reached. Is Pennon running?', []);
  }
  const text = await res.text();
  if (res.status === 404) throw new MetricsDisabled();
  if (!res.ok) throw errorFrom(res.status, text);
  return text;
}

/** Keeps the lines that can concern `flag` (its label as written) and the start time. */
export function linesFor(flag: string): (line: string) => boolean {
  const label = `flag="${escapeLabelValue(flag)}"`;
  // Latency is kept per namespace unless metrics.per_flag_latency: those lines name no flag.
  return (line) => line.includes(label) || line.includes('flag="__other__"') || line.startsWith('process_start_time_seconds') || (line.includes('_evaluations_latency_milliseconds') && !line.includes('flag="'));
}
