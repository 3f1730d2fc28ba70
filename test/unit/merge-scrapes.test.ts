import { describe, expect, it } from 'vitest';
import { Metrics, mergeScrapes } from '../../internal/telemetry';
import { sampleValue } from '../support/scrape';

const event = (flag: string, durationMs: number) => ({
  type: 'boolean' as const,
  namespace: 'ns',
  flag,
  startedAt: 0,
  durationMs,
  result: { match: false, reason: 'DEFAULT_EVALUATION_REASON' as const, value: 'true', segments: [] as string[] },
});

describe('mergeScrapes (one scrape from several worker processes)', () => {
  it('sums counters and histograms series by series: what one process would have counted', async () => {
    const [a, b, one] = [new Metrics('s', { defaultMetrics: false }), new Metrics('s', { defaultMetrics: false }), new Metrics('s', { defaultMetrics: false })];
    const spread: [Metrics, string, number][] = [[a, 'f', 3], [b, 'f', 7], [b, 'g', 30], [a, 'g', 2000], [b, 'f', 0.5]];
    for (const [m, flag, ms] of spread) {
      m.evaluation(event(flag, ms));
      one.evaluation(event(flag, ms));
      m.request('POST', '/evaluate/v1/boolean', 200, ms / 1000);
      one.request('POST', '/evaluate/v1/boolean', 200, ms / 1000);
    }
    const merged = mergeScrapes([{ worker: '0', text: await a.text() }, { worker: '1', text: await b.text() }]);
    const single = await one.text();
    // Gauges are each process's own (kept apart under a worker label: the next test); the rest sums.
    const gauges = new Set([...single.matchAll(/^# TYPE (\S+) gauge$/gm)].map((m) => m[1]));
    expect(gauges.size).toBeGreaterThan(0);
    const samples = (text: string) =>
      text
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('#') && !gauges.has(l.split(/[{ ]/)[0]))
        .sort();
    expect(samples(merged)).toEqual(samples(single));
    expect(sampleValue(merged, 's_evaluations_requests_total', { namespace: 'ns', flag: 'f' })).toBe(3);
    expect(sampleValue(merged, 's_evaluations_latency_milliseconds_bucket', { namespace: 'ns', le: '+Inf' })).toBe(5);
    // Each family once, with its HELP and TYPE.
    expect(merged.match(/^# TYPE s_evaluations_latency_milliseconds histogram$/gm)).toHaveLength(1);
    expect(merged.match(/^# HELP s_evaluations_requests_total /gm)).toHaveLength(1);
  });

  it('keeps each process’s gauges apart under a worker label, and +Inf and NaN as Prometheus writes them', () => {
    const text = (rss: number, lag: string) =>
      `# HELP process_resident_memory_bytes Resident memory size in bytes.\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes ${rss}\n\n# TYPE lag gauge\nlag{kind="max"} ${lag}\n\n# TYPE c counter\nc{le="x y"} 2\n`;
    const merged = mergeScrapes([{ worker: '0', text: text(100, '+Inf') }, { worker: '1', text: text(250, 'NaN') }]);
    expect(merged).toContain('process_resident_memory_bytes{worker="0"} 100\n');
    expect(merged).toContain('process_resident_memory_bytes{worker="1"} 250\n');
    expect(merged).toContain('lag{worker="0",kind="max"} +Inf\n');
    expect(merged).toContain('lag{worker="1",kind="max"} NaN\n');
    expect(merged).toContain('c{le="x y"} 4\n'); // a space inside a label value is not the value's separator
  });
});
