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
    const text = await m.registry.metrics();
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
    const text = await m.registry.metrics();
    expect(text).not.toContain('random-1');
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="__other__"}')).toBe(2);
    expect(line(text, 't_evaluations_requests_total{namespace="ns",flag="f9999"}')).toBe(1);
  });
});
