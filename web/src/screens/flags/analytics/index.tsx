import { useRef } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { ApiError } from '../../../api/errors';
import { countBy, quantileBound, type FlagEvaluations } from '../../../api/metrics';
import type { Flag } from '../../../api/types';
import { Empty, LoadError, Loading } from '../../../components/states';
import { formatDate } from '../../../lib/format';
import { paths } from '../../../routes/paths';
import { BarList, LatencyHistogram, Sparkline } from './charts';
import { formatCount, formatMs, reasonLabel } from './format';
import { useFlagEvaluations, type Point } from './use-evaluations';

/**
 * Flipt's flag "Analytics" tab, from what Pennon has: this instance's Prometheus counters
 * (`GET /metrics`) for the flag since the instance started — total, errors, outcomes by
 * variant (or value) and reason, latency — and a sparkline of evaluations per interval, sampled
 * every 5 s while the section is in view. Flipt reads a shared analytics store instead; here,
 * behind a load balancer, each instance shows its own counts (docs/DECISIONS.md, Dashboard).
 */
export function EvaluationsSection({ ns, flag }: { ns: string; flag: Flag }) {
  const ref = useRef<HTMLElement>(null);
  const state = useFlagEvaluations(ns, flag.key, ref);
  const { stats } = state;

  let body;
  if (state.status === 'loading') body = <Loading label="Reading this instance's metrics…" />;
  else if (state.status === 'disabled') body = <MetricsOff />;
  else if (state.status === 'error' || !stats) body = <LoadError error={state.error} retry={state.refresh} />;
  else if (stats.requests === 0) body = <NoEvaluations ns={ns} flag={flag} stats={stats} />;
  else body = <Counts flag={flag} stats={stats} points={state.points} />;

  return (
    <section class="flag-section analytics" aria-labelledby="evaluations-title" ref={ref}>
      <header class="flag-section-header">
        <h2 id="evaluations-title">Evaluations</h2>
        {/* Never disabled: a sample every 5 s would take the keyboard focus away from it. */}
        <button type="button" class="button button-small" onClick={state.refresh}>
          Refresh
        </button>
      </header>
      {state.status !== 'disabled' && (
        <p class="analytics-note">
          This instance's counts since it started{stats?.startedAt ? <> ({formatDate(new Date(stats.startedAt).toISOString())})</> : null}, read from its{' '}
          <code>/metrics</code>. Flipt's Analytics tab reads a shared analytics store; with several Pennon instances behind a load balancer, each shows
          its own.
        </p>
      )}
      {state.status === 'ready' && state.error !== null && (
        <p class="form-error analytics-stale" role="alert">
          The last refresh failed ({state.error instanceof ApiError || state.error instanceof Error ? state.error.message : String(state.error)}); the counts
          shown are from the refresh before.
        </p>
      )}
      {body}
    </section>
  );
}

function MetricsOff() {
  return (
    <div class="state state-empty analytics-off">
      <p class="state-title">Metrics are turned off on this instance.</p>
      <p>
        These counts come from the instance's Prometheus metrics (<code>GET /metrics</code>), which <code>metrics.enabled: false</code> turns off. Set{' '}
        <code>metrics.enabled: true</code> (or <code>PENNON_METRICS_ENABLED=true</code>) and restart the instance to see this flag's evaluations.
      </p>
    </div>
  );
}

function NoEvaluations({ ns, flag, stats }: { ns: string; flag: Flag; stats: FlagEvaluations }) {
  return (
    <Empty title="No evaluations of this flag yet.">
      <p>
        Nothing has evaluated <span class="mono">{flag.key}</span> on this instance since it started.{' '}
        <Link href={paths.console(ns, flag.key)}>Evaluate it in the console</Link>, or from an application; this section samples again every 5 s.
      </p>
      {stats.other > 0 && <OtherNote other={stats.other} />}
    </Empty>
  );
}

function OtherNote({ other }: { other: number }) {
  return (
    <p class="analytics-other muted">
      Past the instance's cap on flag series (<code>metrics.max_flag_series</code>), new flags are counted together as <code>__other__</code> ({formatCount(other)} in this namespace): some of this flag's
      evaluations may be there.
    </p>
  );
}

const latencyScopeNote = "This instance keeps evaluation latency per namespace: these are all of this namespace's evaluations (metrics.per_flag_latency: true keeps it per flag).";

function Counts({ flag, stats, points }: { flag: Flag; stats: FlagEvaluations; points: Point[] }) {
  const boolean = flag.type === 'BOOLEAN_FLAG_TYPE';
  const answered = stats.outcomes.reduce((sum, o) => sum + o.count, 0);
  const mean = stats.latency.count > 0 ? stats.latency.sumMs / stats.latency.count : null;
  const p95 = quantileBound(stats.latency.buckets, 0.95);
  const namespaceWide = stats.latency.scope === 'namespace';
  const values = countBy(stats.outcomes, 'value').map((v) => ({
    key: v.key,
    label: v.key === '' ? '(no variant)' : v.key,
    title: v.key === '' ? 'No rule matched and there is no default variant' : v.key,
    count: v.count,
  }));
  const reasons = countBy(stats.outcomes, 'reason').map((r) => ({ key: r.key, label: reasonLabel(r.key), title: r.key, count: r.count }));

  return (
    <div class="analytics-body">
      <dl class="analytics-stats">
        <div class="analytics-stat">
          <dt>Evaluations</dt>
          <dd data-stat="evaluations">{formatCount(stats.requests)}</dd>
        </div>
        <div class={stats.errors > 0 ? 'analytics-stat analytics-stat-errors' : 'analytics-stat'}>
          <dt>Errors</dt>
          <dd data-stat="errors">{formatCount(stats.errors)}</dd>
        </div>
        <div class="analytics-stat" title={namespaceWide ? latencyScopeNote : undefined}>
          <dt>{namespaceWide ? 'Mean latency (namespace)' : 'Mean latency'}</dt>
          <dd data-stat="mean-latency">{mean === null ? '—' : formatMs(mean)}</dd>
        </div>
        <div class="analytics-stat">
          <dt>{namespaceWide ? '95% within (namespace)' : '95% within'}</dt>
          <dd data-stat="p95">{p95 === null ? '—' : formatMs(p95)}</dd>
        </div>
      </dl>
      <Sparkline points={points} />
      <div class="analytics-grid">
        {answered > 0 ? (
          <>
            <BarList title={boolean ? 'By value' : 'By variant'} bars={values} total={answered} />
            <BarList title="By reason" bars={reasons} total={answered} />
          </>
        ) : (
          <p class="muted analytics-breakdown">Every evaluation failed: there are no answers to break down.</p>
        )}
        {stats.latency.count > 0 && <LatencyHistogram buckets={stats.latency.buckets} />}
      </div>
      {stats.errors > 0 && (
        <p class="analytics-hint muted">
          Errors are evaluations that got no answer, e.g. while the flag did not exist or its namespace was unknown.
        </p>
      )}
      {stats.other > 0 && <OtherNote other={stats.other} />}
    </div>
  );
}
