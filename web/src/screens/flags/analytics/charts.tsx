import type { LatencyBucket } from '../../../api/metrics';
import { formatCount, formatMs, percent } from './format';
import type { Point } from './use-evaluations';

/**
 * The section's pictures, drawn with classes only (the CSP refuses inline styles): bars are
 * <progress> elements, the sparkline and the histogram inline SVG whose geometry is attributes
 * and whose colours come from the stylesheet (web/src/styles), so both themes apply.
 */

export interface Bar {
  key: string;
  label: string;
  title?: string;
  count: number;
}

/** A small bar list: label, bar, count and share of `total`. */
export function BarList({ title, bars, total }: { title: string; bars: Bar[]; total: number }) {
  const id = `bars-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <div class="analytics-breakdown">
      <h3 id={id}>{title}</h3>
      <ul class="analytics-bars" aria-labelledby={id}>
        {bars.map((b) => (
          <li key={b.key} data-key={b.key}>
            <span class="analytics-bar-label" title={b.title ?? b.label}>
              {b.label}
            </span>
            <progress class="analytics-bar" max={Math.max(total, 1)} value={b.count} aria-label={`${b.label}: ${b.count} of ${total}`} />
            <span class="analytics-bar-count">
              <span class="analytics-bar-number">{formatCount(b.count)}</span> <span class="muted">{percent(b.count, total)}</span>
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

const SPARK_W = 300;
const SPARK_H = 48;

/** Evaluations between consecutive samples; a total that went down (a restarted instance) starts again from 0. */
export function intervals(points: readonly Point[]): { at: number; count: number; ms: number }[] {
  const out: { at: number; count: number; ms: number }[] = [];
  for (let i = 1; i < points.length; i++) {
    const prev = points[i - 1];
    const cur = points[i];
    out.push({ at: cur.at, count: cur.total >= prev.total ? cur.total - prev.total : cur.total, ms: cur.at - prev.at });
  }
  return out;
}

/**
 * Evaluations per sampling interval over the last WINDOW_MS, oldest on the left: one point per
 * interval, evenly spaced (a Refresh makes an interval shorter than 5 s; the caption says how long
 * the latest was), so the line fills the box from the second sample on.
 */
export function Sparkline({ points }: { points: readonly Point[] }) {
  const steps = intervals(points);
  if (steps.length === 0) {
    return (
      <figure class="analytics-spark">
        <figcaption>
          <span class="analytics-subtitle">Evaluations per interval</span> <span class="muted">sampling every 5 s while this section is in view…</span>
        </figcaption>
      </figure>
    );
  }
  const peak = Math.max(1, ...steps.map((s) => s.count));
  const x = (i: number) => (steps.length === 1 ? SPARK_W / 2 : 2 + (i / (steps.length - 1)) * (SPARK_W - 4));
  const y = (count: number) => SPARK_H - 3 - (count / peak) * (SPARK_H - 8);
  const coords = steps.length === 1 ? [[0, y(steps[0].count)], [SPARK_W, y(steps[0].count)]] : steps.map((s, i) => [x(i), y(s.count)]);
  const line = coords.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
  const area = `${coords[0][0].toFixed(1)},${SPARK_H} ${line} ${coords[coords.length - 1][0].toFixed(1)},${SPARK_H}`;
  const last = steps[steps.length - 1];
  const seconds = Math.max(1, Math.round(last.ms / 1000));
  const span = Math.max(1, Math.round((points[points.length - 1].at - points[0].at) / 1000));
  const spanText = span < 120 ? `${span} s` : `${Math.round(span / 60)} min`;
  const summary = `Evaluations per interval over the last ${spanText} (${steps.length} interval${steps.length === 1 ? '' : 's'}): latest ${last.count} in ${seconds} s, peak ${peak}.`;
  return (
    <figure class="analytics-spark">
      <figcaption>
        <span class="analytics-subtitle">Evaluations per interval</span>{' '}
        <span class="muted">
          latest <strong data-stat="last-interval">+{formatCount(last.count)}</strong> in {seconds} s · peak {formatCount(peak)} · over {spanText}
        </span>
      </figcaption>
      <svg class="analytics-spark-svg" viewBox={`0 0 ${SPARK_W} ${SPARK_H}`} preserveAspectRatio="none" role="img" aria-label={summary}>
        <polygon class="analytics-spark-area" points={area} />
        <polyline class="analytics-spark-line" points={line} vector-effect="non-scaling-stroke" />
      </svg>
    </figure>
  );
}

const COL_W = 30;
const HIST_H = 110;
const LABEL_H = 16;
const TOP = 12;

/** `≤ 5`, `≤ 1k`, `> 10k`: a bucket's bound, short enough to sit under its column. */
function boundLabel(buckets: readonly LatencyBucket[], i: number): string {
  const le = buckets[i].le;
  const short = (ms: number) => (ms >= 1000 ? `${ms / 1000}k` : String(ms));
  if (le === Infinity) return `>${short(buckets[i - 1]?.le ?? 0)}`;
  return short(le);
}

/**
 * The latency histogram from the buckets (upper bounds in ms). Buckets past the slowest
 * evaluation are left off (at least the first eight stay, so the scale reads the same).
 */
export function LatencyHistogram({ buckets }: { buckets: readonly LatencyBucket[] }) {
  let lastUsed = 0;
  buckets.forEach((b, i) => b.count > 0 && (lastUsed = i));
  const shown = buckets.slice(0, Math.min(buckets.length, Math.max(8, lastUsed + 2)));
  const total = buckets.reduce((sum, b) => sum + b.count, 0);
  const peak = Math.max(1, ...shown.map((b) => b.count));
  const width = shown.length * COL_W;
  const barH = HIST_H - LABEL_H - TOP;
  const describe = (b: LatencyBucket, i: number) => {
    const lower = i === 0 ? null : buckets[i - 1].le;
    const range = b.le === Infinity ? `over ${formatMs(lower ?? 0)}` : lower === null ? `${formatMs(b.le)} or less` : `${formatMs(lower)} to ${formatMs(b.le)}`;
    return `${range}: ${b.count} (${percent(b.count, total)})`;
  };
  return (
    <figure class="analytics-hist">
      <figcaption class="analytics-subtitle">Latency (ms, by bucket)</figcaption>
      <svg class="analytics-hist-svg" viewBox={`0 0 ${width} ${HIST_H}`} role="img" aria-label={`Latency histogram: ${shown.map(describe).join('; ')}`}>
        {shown.map((b, i) => {
          const h = b.count === 0 ? 0 : Math.max(2, (b.count / peak) * barH);
          return (
            <g key={String(b.le)} class={b.count > 0 ? 'analytics-hist-col used' : 'analytics-hist-col'}>
              <title>{describe(b, i)}</title>
              <rect class="analytics-hist-track" x={i * COL_W + 3} y={TOP} width={COL_W - 6} height={barH} rx="2" />
              <rect class="analytics-hist-bar" x={i * COL_W + 3} y={TOP + barH - h} width={COL_W - 6} height={h} rx="2" />
              {b.count > 0 && (
                <text class="analytics-hist-count" x={i * COL_W + COL_W / 2} y={Math.max(TOP - 2, TOP + barH - h - 3)} text-anchor="middle">
                  {b.count >= 1000 ? `${Math.round(b.count / 100) / 10}k` : b.count}
                </text>
              )}
              <text class="analytics-hist-label" x={i * COL_W + COL_W / 2} y={HIST_H - 3} text-anchor="middle">
                {boundLabel(buckets, i)}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
