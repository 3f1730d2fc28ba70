import { describe, expect, it } from 'vitest';
import { Metrics } from '../../internal/telemetry';
import type { EvaluationEvent } from '../../internal/telemetry';

const event = (flag: string, value: string, segments: readonly string[] = ['s'], namespace = 'ns'): EvaluationEvent => ({
  type: 'variant',
  namespace,
  flag,
  startedAt: 0,
  durationMs: 0.01,
  result: { match: true, reason: 'MATCH_EVALUATION_REASON', value, segments },
});

function line(text: string, prefix: string): number {
  const found = text.split('\n').find((l) => l.startsWith(prefix));
  return found ? Number(found.slice(found.lastIndexOf(' ') + 1)) : 0;
}

describe('Metrics (evaluation tallies)', () => {
  it('counts each outcome exactly, also when outcomes alternate', async () => {
    const m = new Metrics('t', { defaultMetrics: false });
    const segs = ['s'];
    for (let i = 0; i < 10; i++) m.evaluation(event('f', i % 3 === 0 ? 'a' : 'b', segs));
    const text = await m.text();
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="f"}')).toBe(10);
    expect(line(text, 't_evaluations_results_total{namespace="ns",flag="f",match="true",segment="s",reason="MATCH_EVALUATION_REASON",value="a",type="variant"}')).toBe(4);
    expect(line(text, 't_evaluations_results_total{namespace="ns",flag="f",match="true",segment="s",reason="MATCH_EVALUATION_REASON",value="b",type="variant"}')).toBe(6);
    // Latency per namespace by default (per flag with metrics.per_flag_latency: below).
    expect(line(text, 't_evaluations_latency_milliseconds_count{namespace="ns"}')).toBe(10);
    expect(line(text, 't_evaluations_latency_milliseconds_bucket{namespace="ns",le="5"}')).toBe(10);
    expect(text).not.toContain('t_evaluations_latency_milliseconds_count{namespace="ns",flag=');
  });

  it('with perFlagLatency, a latency histogram per flag (Flipt’s shape)', async () => {
    const m = new Metrics('t', { defaultMetrics: false, perFlagLatency: true });
    for (let i = 0; i < 4; i++) m.evaluation(event(i % 2 === 0 ? 'f' : 'g', 'a'));
    const text = await m.text();
    expect(text).toMatch(/^# HELP t_evaluations_latency_milliseconds Flag evaluation latency\n/m);
    expect(line(text, 't_evaluations_latency_milliseconds_count{namespace="ns",flag="f"}')).toBe(2);
    expect(line(text, 't_evaluations_latency_milliseconds_bucket{namespace="ns",flag="g",le="5"}')).toBe(2);
    expect(text).not.toContain('t_evaluations_latency_milliseconds_count{namespace="ns"}');
  });

  it('bounds the series: past max_flag_series (4,000 by default) namespace/flag pairs new flags are counted as __other__', async () => {
    const m = new Metrics('t', { defaultMetrics: false });
    for (let i = 0; i < 4_000; i++) m.evaluation(event(`f${i}`, 'a'));
    m.evaluation(event('random-1', 'a'));
    m.evaluation(event('random-2', 'a'));
    const text = await m.text();
    expect(text).not.toContain('random-1');
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="__other__"}')).toBe(2);
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="f3999"}')).toBe(1);
  });

  it('bounds the outcomes: past two per flag series on average, new ones are counted under flag __other__ without detail', async () => {
    const m = new Metrics('t', { defaultMetrics: false, maxFlagSeries: 2 });
    for (const value of ['a', 'b', 'c', 'd', 'e']) m.evaluation(event('f', value));
    m.evaluation(event('f', 'a'));
    const text = await m.text();
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="f"}')).toBe(6);
    expect(line(text, 't_evaluations_results_total{namespace="ns",flag="f",match="true",segment="s",reason="MATCH_EVALUATION_REASON",value="a",type="variant"}')).toBe(2);
    expect(line(text, 't_evaluations_results_total{namespace="ns",flag="f",match="true",segment="s",reason="MATCH_EVALUATION_REASON",value="d",type="variant"}')).toBe(1);
    expect(text).not.toContain('value="e"');
    expect(line(text, 't_evaluations_results_total{namespace="ns",flag="__other__",match="",segment="",reason="",value="",type="variant"}')).toBe(1);
  });

  it('a scrape of 100,000 evaluated flags (three outcomes each) stays under 2 MB by default', async () => {
    const m = new Metrics('t', { defaultMetrics: true });
    const segments = ['segment-1'];
    for (let i = 0; i < 100_000; i++) for (const value of ['variant-1', 'variant-2', 'variant-3']) m.evaluation(event(`flag-${i}`, value, segments, 'default'));
    const text = await m.text();
    expect(text.length).toBeGreaterThan(1_000_000); // 4,000 flags' series are there
    expect(text.length).toBeLessThan(2_000_000);
    expect(line(text, 't_evaluations_requests_total{namespace="default",flag="__other__"}')).toBe(96_000 * 3);
  });

  it('renders every change between scrapes (unchanged lines are reused, changed ones never)', async () => {
    const m = new Metrics('t', { defaultMetrics: false });
    for (let i = 0; i < 300; i++) m.evaluation(event(`f${i}`, 'a'));
    await m.text();
    m.evaluation(event('f7', 'a'));
    m.evaluation(event('f250', 'b'));
    m.evaluation(event('new', 'a'));
    const text = await m.text();
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="f7"}')).toBe(2);
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="f8"}')).toBe(1);
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="f250"}')).toBe(2);
    expect(line(text, 't_evaluations_results_total{namespace="ns",flag="f250",match="true",segment="s",reason="MATCH_EVALUATION_REASON",value="b",type="variant"}')).toBe(1);
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="new"}')).toBe(1);
    expect(line(text, 't_evaluations_latency_milliseconds_count{namespace="ns"}')).toBe(303);
  });

  it('counts failed lookups under namespace and flag unknown, never under the names a client sent', async () => {
    const m = new Metrics('t', { defaultMetrics: false });
    for (let i = 0; i < 100; i++) m.evaluation({ type: 'variant', namespace: `ns-${i}`, flag: `f-${i}`, startedAt: 0, durationMs: 0.01, error: new Error('not found'), lookupFailed: true });
    const text = await m.text();
    expect(line(text, 't_evaluations_requests_total{namespace="unknown",flag="unknown"}')).toBe(100);
    expect(line(text, 't_evaluations_errors_total{namespace="unknown",flag="unknown"}')).toBe(100);
    expect(line(text, 't_evaluations_latency_milliseconds_count{namespace="unknown"}')).toBe(100);
    expect(text).not.toMatch(/ns-|f-\d/);
  });

  it('bounds the namespaces: past max_namespace_series new ones are counted as namespace and flag __other__', async () => {
    const m = new Metrics('t', { defaultMetrics: false, maxNamespaceSeries: 2 });
    for (const ns of ['a', 'b', 'c', 'd', 'c']) m.evaluation(event('f', 'v', ['s'], ns));
    const text = await m.text();
    expect(line(text, 't_evaluations_requests_total{namespace="a",flag="f"}')).toBe(1);
    expect(line(text, 't_evaluations_requests_total{namespace="b",flag="f"}')).toBe(1);
    expect(line(text, 't_evaluations_requests_total{namespace="__other__",flag="__other__"}')).toBe(3);
    expect(line(text, 't_evaluations_results_total{namespace="__other__",flag="__other__",match="true",segment="s",reason="MATCH_EVALUATION_REASON",value="v",type="variant"}')).toBe(3);
    expect(text).not.toMatch(/namespace="[cd]"/);
  });

  it('renders the text format: label values escaped, HELP and TYPE per family, a histogram per series whole', async () => {
    const m = new Metrics('t', { defaultMetrics: false });
    m.evaluation({ ...event('f', 'say "hi"\\\n', ['s']), durationMs: 7 });
    const text = await m.text();
    expect(text).toContain('value="say \\"hi\\"\\\\\\n"');
    expect(text).toMatch(/^# HELP t_evaluations_latency_milliseconds Flag evaluation latency by namespace\n# TYPE t_evaluations_latency_milliseconds histogram$/m);
    expect(line(text, 't_evaluations_latency_milliseconds_bucket{namespace="ns",le="5"}')).toBe(0);
    expect(line(text, 't_evaluations_latency_milliseconds_bucket{namespace="ns",le="10"}')).toBe(1);
    expect(line(text, 't_evaluations_latency_milliseconds_bucket{namespace="ns",le="+Inf"}')).toBe(1);
    expect(line(text, 't_evaluations_latency_milliseconds_sum{namespace="ns"}')).toBe(7);
  });

  it('scrapes in slices, each far smaller than the whole', async () => {
    const m = new Metrics('t', { defaultMetrics: false });
    for (let i = 0; i < 2000; i++) m.evaluation(event(`f${i}`, 'a'));
    const slices: number[] = [];
    for await (const slice of m.scrape()) slices.push(slice.length);
    const total = slices.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(2000 * 200); // each flag's requests and outcome
    expect(Math.max(...slices)).toBeLessThan(20 * 1024);
  });
});
