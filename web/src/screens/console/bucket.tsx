import { rangesFromBounds, type FlagTrace } from '../../../../internal/evaluation';
import { cutShares } from '../../lib/distributions';

/**
 * Where the entity fell. Variant flags: its bucket, crc32(flagKey + entityId) % 1000, among the
 * matched rule's distribution ranges; boolean threshold rollouts: its value,
 * crc32(entityId + flagKey) % 100, against the percentage. Drawn as SVG with attributes (the
 * CSP refuses inline styles) and said in words and a table for those who do not see it. A rule
 * whose distributions add up to more than 100% has ranges past bucket 999: listed as never
 * reached, not drawn.
 */

export function BucketBar({ bucket }: { bucket: NonNullable<FlagTrace['bucket']> }) {
  const ranges = rangesFromBounds(bucket.bounds, bucket.variants, bucket.rollouts);
  const { reachable, unreachable, total } = ranges;
  const hit = reachable.find((r) => bucket.value >= r.from && bucket.value <= r.to);
  const words = `Bucket ${bucket.value} of 0–999 falls in ${hit?.variant ? `${hit.variant}'s range ${hit.from}–${hit.to}` : `the undistributed range ${hit?.from}–${hit?.to}: no variant`}`;
  return (
    <div class="console-bucket" data-testid="console-bucket" data-bucket={bucket.value}>
      <p>
        <strong>Bucket {bucket.value}</strong> <span class="muted">of 0–999 — crc32(flag key + entity ID) % 1000</span>
      </p>
      {unreachable.length > 0 && (
        <p class="console-unreachable" role="note" data-testid="console-unreachable">
          The distributions add up to {total}%, but buckets stop at 999: {unreachable.map((r) => `${r.from}–${r.to} (${r.variant})`).join(', ')}{' '}
          {unreachable.length === 1 ? 'is' : 'are'} never reached, so {cutShares(ranges)}.
        </p>
      )}
      <svg class="console-bar" viewBox="0 0 1000 30" preserveAspectRatio="none" role="img" aria-label={words}>
        {reachable.map((r, i) => (
          <rect
            key={`${r.from}`}
            x={r.from}
            y={6}
            width={r.to - r.from + 1}
            height={18}
            class={`${r.variant === null ? 'console-range-empty' : `console-range console-range-${i % 4}`}${r === hit ? ' console-range-hit' : ''}`}
          />
        ))}
        <line x1={bucket.value + 0.5} x2={bucket.value + 0.5} y1={0} y2={30} class="console-marker" />
      </svg>
      <table class="table console-ranges">
        <thead>
          <tr>
            <th scope="col">Buckets</th>
            <th scope="col">Variant</th>
            <th scope="col">Share</th>
          </tr>
        </thead>
        <tbody>
          {reachable.map((r) => (
            <tr key={r.from} class={r === hit ? 'console-row-hit' : undefined} aria-current={r === hit ? 'true' : undefined}>
              <td class="mono nowrap">
                {r.from}–{r.to}
              </td>
              <td>{r.variant === null ? <span class="muted">none (not distributed)</span> : <code>{r.variant}</code>}</td>
              <td>
                {((r.to - r.from + 1) / 10).toFixed(1)}%{r === hit && <strong> ← bucket {bucket.value}</strong>}
              </td>
            </tr>
          ))}
          {unreachable.map((r) => (
            <tr key={`past-${r.from}`} class="console-row-unreachable" data-unreachable="true">
              <td class="mono nowrap">
                {r.from}–{r.to}
              </td>
              <td>
                <code>{r.variant}</code>
              </td>
              <td>never reached (past 999)</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ThresholdBar({ value, percentage, answer, matched }: { value: number; percentage: number; answer: boolean; matched: boolean }) {
  const words = `Entity value ${value} of 0–99 is ${matched ? 'below' : 'not below'} the threshold ${percentage}%`;
  return (
    <div class="console-bucket" data-testid="console-threshold" data-value={value}>
      <p>
        <strong>Value {value}</strong> <span class="muted">of 0–99 — crc32(entity ID + flag key) % 100</span>:{' '}
        {matched ? (
          <>
            below {percentage}, so this rollout answers <code>{String(answer)}</code>
          </>
        ) : (
          <>not below {percentage}: the next rollout decides</>
        )}
      </p>
      <svg class="console-bar" viewBox="0 0 100 30" preserveAspectRatio="none" role="img" aria-label={words}>
        <rect x={0} y={6} width={Math.min(100, Math.max(0, percentage))} height={18} class={`console-range console-range-0${matched ? ' console-range-hit' : ''}`} />
        <rect x={Math.min(100, Math.max(0, percentage))} y={6} width={Math.max(0, 100 - percentage)} height={18} class="console-range-empty" />
        <line x1={value + 0.5} x2={value + 0.5} y1={0} y2={30} class="console-marker console-marker-thin" />
      </svg>
    </div>
  );
}
