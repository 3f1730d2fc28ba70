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
    expect(line(text, 't_evaluations_latency_milliseconds_count{namespace="ns",flag="f"}')).toBe(10);
    expect(line(text, 't_evaluations_latency_milliseconds_bucket{namespace="ns",flag="f",le="5"}')).toBe(10);
  });

  it('bounds the series: past 10,000 namespace/flag pairs new flags are counted as __other__', async () => {
    const m = new Metrics('t', { defaultMetrics: false });
    for (let i = 0; i < 10_000; i++) m.evaluation(event(`f${i}`, 'a'));
    m.evaluation(event('random-1', 'a'));
    m.evaluation(event('random-2', 'a'));
    const text = await m.text();
    expect(text).not.toContain('random-1');
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="__other__"}')).toBe(2);
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="f9999"}')).toBe(1);
  });

  it('counts failed lookups under namespace and flag unknown, never under the names a client sent', async () => {
    const m = new Metrics('t', { defaultMetrics: false });
    for (let i = 0; i < 100; i++) m.evaluation({ type: 'variant', namespace: `ns-${i}`, flag: `f-${i}`, startedAt: 0, durationMs: 0.01, error: new Error('not found'), lookupFailed: true });
    const text = await m.text();
    expect(line(text, 't_evaluations_requests_total{namespace="unknown",flag="unknown"}')).toBe(100);
    expect(line(text, 't_evaluations_errors_total{namespace="unknown",flag="unknown"}')).toBe(100);
    expect(line(text, 't_evaluations_latency_milliseconds_count{namespace="unknown",flag="unknown"}')).toBe(100);
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
    expect(text).toMatch(/^# HELP t_evaluations_latency_milliseconds Flag evaluation latency\n# TYPE t_evaluations_latency_milliseconds histogram$/m);
    expect(line(text, 't_evaluations_latency_milliseconds_bucket{namespace="ns",flag="f",le="5"}')).toBe(0);
    expect(line(text, 't_evaluations_latency_milliseconds_bucket{namespace="ns",flag="f",le="10"}')).toBe(1);
    expect(line(text, 't_evaluations_latency_milliseconds_bucket{namespace="ns",flag="f",le="+Inf"}')).toBe(1);
    expect(line(text, 't_evaluations_latency_milliseconds_sum{namespace="ns",flag="f"}')).toBe(7);
  });

  it('scrapes in slices, each far smaller than the whole', async () => {
    const m = new Metrics('t', { defaultMetrics: false });
    for (let i = 0; i < 2000; i++) m.evaluation(event(`f${i}`, 'a'));
    const slices: number[] = [];
    for await (const slice of m.scrape()) slices.push(slice.length);
    const total = slices.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(2000 * 18 * 50);
    expect(Math.max(...slices)).toBeLessThan(20 * 1024);
  });
});
