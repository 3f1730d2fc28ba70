import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../internal/telemetry';
import { countBy, escapeLabelValue, flagEvaluations, linesFor, metricPrefixes, parsePrometheus, parseSample, quantileBound } from '../../web/src/api/metrics';

/**
 * The dashboard's Prometheus parser (web/src/api/metrics.ts, the flag page's Evaluations) on a
 * real scrape: test/fixtures/metrics/pennon-scrape.txt is `GET /metrics` of `pennon serve`
 * (default settings, so prefix `service_` and Node's default metrics) after: 6 evaluations of
 * variant flag `colour` without namespaceKey and 1 with `default` (variants `blue` and
 * `say "hi"\n` — a quote and a backslash in the key — split 50/50 by a rule on segment `all`),
 * 1 of missing flag `missing`, 1 of boolean flag `on`, and 1 of a missing flag whose key holds
 * quotes, a backslash, braces, `#` and a newline.
 */
const SCRAPE = readFileSync(join(__dirname, '../fixtures/metrics/pennon-scrape.txt'), 'utf8');
const WEIRD = 'we"ird\\key{a="b"} # x\nline2';

describe('dashboard metrics parser', () => {
  const scrape = parsePrometheus(SCRAPE);

  it('reads every sample of a real scrape, comments and HELP/TYPE lines skipped, TYPE kept', () => {
    const sampleLines = SCRAPE.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    expect(scrape.samples).toHaveLength(sampleLines.length);
    expect(scrape.types.get('service_evaluations_requests_total')).toBe('counter');
    expect(scrape.types.get('service_evaluations_latency_milliseconds')).toBe('histogram');
    expect(scrape.samples.find((s) => s.name === 'process_start_time_seconds')?.value).toBe(1795385624);
    // Node's default metrics: labels in other orders, le first.
    const gc = scrape.samples.find((s) => s.name === 'nodejs_gc_duration_seconds_bucket');
    expect(gc?.labels).toHaveProperty('le');
    expect(gc?.labels).toHaveProperty('kind');
  });

  it('unescapes label values: quotes, backslashes, newlines; braces, commas and # inside quotes are text', () => {
    const weird = scrape.samples.filter((s) => s.labels.flag === WEIRD);
    expect(weird.map((s) => s.name)).toContain('service_evaluations_requests_total');
    expect(weird.map((s) => s.name)).toContain('service_evaluations_errors_total');
    const variants = scrape.samples.filter((s) => s.name === 'service_evaluations_results_total' && s.labels.flag === 'colour').map((s) => s.labels.value);
    expect(variants).toContain('say "hi"\\n');
    expect(escapeLabelValue(WEIRD)).toBe('we\\"ird\\\\key{a=\\"b\\"} # x\\nline2');
  });

  it('finds the prefix (metrics.namespace) from the requests family', () => {
    expect(metricPrefixes(scrape)).toEqual(['service']);
  });

  it("sums a flag over its namespace's spellings: '' (omitted) and 'default' are both default", () => {
    const colour = flagEvaluations(scrape, 'service', 'default', 'colour');
    expect(colour.requests).toBe(7);
    expect(colour.errors).toBe(0);
    expect(countBy(colour.outcomes, 'value')).toEqual([
      { key: 'blue', count: 4 },
      { key: 'say "hi"\\n', count: 3 },
    ]);
    expect(countBy(colour.outcomes, 'reason')).toEqual([{ key: 'MATCH_EVALUATION_REASON', count: 7 }]);
    expect(countBy(colour.outcomes, 'segment')).toEqual([{ key: 'all', count: 7 }]);
    expect(colour.latency.count).toBe(7);
    expect(colour.latency.sumMs).toBeCloseTo(0.4346879999993689 + 0.027951000000030035, 12);
    // Per bucket, not cumulative: 0 at le=0, all 7 at le=5, none after.
    expect(colour.latency.buckets.map((b) => [b.le, b.count]).slice(0, 3)).toEqual([
      [0, 0],
      [5, 7],
      [10, 0],
    ]);
    expect(colour.latency.buckets).toHaveLength(16);
    expect(colour.latency.buckets[15]).toEqual({ le: Infinity, count: 0 });
    expect(quantileBound(colour.latency.buckets, 0.95)).toBe(5);
    expect(colour.startedAt).toBe(1795385624 * 1000);
    expect(colour.other).toBe(0);
  });

  it('keeps namespaces apart and counts failures as errors', () => {
    expect(flagEvaluations(scrape, 'service', 'other', 'colour').requests).toBe(0);
    const missing = flagEvaluations(scrape, 'service', 'default', 'missing');
    expect([missing.requests, missing.errors, missing.outcomes]).toEqual([1, 1, []]);
    const weird = flagEvaluations(scrape, 'service', 'default', WEIRD);
    expect([weird.requests, weird.errors]).toEqual([1, 1]);
    const on = flagEvaluations(scrape, 'service', 'default', 'on');
    expect(on.outcomes).toEqual([{ type: 'boolean', value: 'true', reason: 'DEFAULT_EVALUATION_REASON', segment: '', count: 1 }]);
  });

  it("linesFor(flag) skips other flags' lines and gives the same counts", () => {
    for (const flag of ['colour', 'missing', WEIRD, 'on']) {
      const filtered = parsePrometheus(SCRAPE, linesFor(flag));
      expect(filtered.samples.length).toBeLessThan(scrape.samples.length / 4);
      expect(flagEvaluations(filtered, 'service', 'default', flag)).toEqual(flagEvaluations(scrape, 'service', 'default', flag));
    }
  });

  it('is tolerant: spaces, trailing commas, timestamps, special values; unreadable lines are skipped', () => {
    expect(parseSample('a_b:c { x = "1" , y="2", } 3.5e2 1700000000000')).toEqual({ name: 'a_b:c', labels: { x: '1', y: '2' }, value: 350 });
    expect(parseSample('up 1')).toEqual({ name: 'up', labels: {}, value: 1 });
    expect(parseSample('h_bucket{le="+Inf"} +Inf')?.value).toBe(Infinity);
    expect(parseSample('g -Inf')?.value).toBe(-Infinity);
    expect(Number.isNaN(parseSample('g NaN')?.value)).toBe(true);
    expect(parseSample('x{a="\\t"} 1')?.labels.a).toBe('\\t'); // unknown escape kept as written
    for (const bad of ['x{a="1"', 'x{a=1} 2', 'x{a="1"} ', 'x{a="1"} one', '{a="1"} 2', 'x{="1"} 2', 'x{a="unterminated} 2'])
      expect(parseSample(bad), bad).toBeNull();
    const text = ['# a comment', '#TYPE p_evaluations_requests_total counter', 'garbage line', 'p_evaluations_requests_total{flag="f",namespace="n"} 2', '', '\r'].join('\r\n');
    const parsed = parsePrometheus(text);
    expect(parsed.samples).toEqual([{ name: 'p_evaluations_requests_total', labels: { flag: 'f', namespace: 'n' }, value: 2 }]);
    expect(metricPrefixes(parsed)).toEqual(['p']);
  });

  it("reads the namespace's latency when the instance keeps no per-flag latency (the default), and says so", async () => {
    const metrics = new Metrics('service', { defaultMetrics: false });
    const event = (namespace: string, flag: string, durationMs: number) =>
      metrics.evaluation({ type: 'boolean', namespace, flag, startedAt: 0, durationMs, result: { match: false, reason: 'DEFAULT_EVALUATION_REASON', value: 'true', segments: [] } });
    event('', 'a', 3); // '' is default, as the request named it
    event('default', 'b', 7);
    event('default', 'b', 30);
    event('other', 'a', 1000);
    for (const filter of [undefined, linesFor('a')]) {
      const a = flagEvaluations(parsePrometheus(await metrics.text(), filter), 'service', 'default', 'a');
      expect(a.requests).toBe(1);
      expect(a.latency.scope).toBe('namespace');
      expect([a.latency.count, a.latency.sumMs]).toEqual([3, 40]); // all of default's evaluations, none of other's
      expect(a.latency.buckets.filter((b) => b.count > 0).map((b) => [b.le, b.count])).toEqual([[5, 1], [10, 1], [50, 1]]);
    }
    const perFlag = new Metrics('service', { defaultMetrics: false, perFlagLatency: true });
    perFlag.evaluation({ type: 'boolean', namespace: 'default', flag: 'a', startedAt: 0, durationMs: 3, result: { match: false, reason: 'DEFAULT_EVALUATION_REASON', value: 'true', segments: [] } });
    const own = flagEvaluations(parsePrometheus(await perFlag.text()), 'service', 'default', 'a');
    expect([own.latency.scope, own.latency.count]).toEqual(['flag', 1]);
  });

  it("finds another prefix from the families' declarations before any evaluation, and the __other__ series", async () => {
    const metrics = new Metrics('flipt', { defaultMetrics: false });
    const empty = parsePrometheus(await metrics.text());
    expect(metricPrefixes(empty)).toEqual(['flipt']);
    expect(flagEvaluations(empty, 'flipt', 'default', 'f').requests).toBe(0);

    // The first 4,000 (the default metrics.max_flag_series) in ns; the 4,001st, in default, is past the cap.
    for (let i = 0; i < 4_001; i++) {
      metrics.evaluation({ type: 'boolean', namespace: i === 4_000 ? 'default' : 'ns', flag: `f${i}`, startedAt: 0, durationMs: 0.01, result: { match: false, reason: 'DEFAULT_EVALUATION_REASON', value: 'true', segments: [] } });
    }
    const full = parsePrometheus(await metrics.text(), linesFor('f4000'));
    const late = flagEvaluations(full, 'flipt', 'default', 'f4000');
    expect([late.requests, late.other]).toEqual([0, 1]);
    expect(flagEvaluations(full, 'flipt', 'ns', 'f4000').other).toBe(0);
  });
});
