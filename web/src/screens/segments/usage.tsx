import { Link } from 'wouter-preact';
import type { Query } from '../../api/hooks';
import type { SegmentUse } from '../../api/usage';
import { LoadError, Loading } from '../../components/states';
import { andList } from '../../lib/words';
import { paths } from '../../routes/paths';

/**
 * The segment page's "Used by": each flag whose rules or rollouts target the segment, linked to
 * the flag's page, with the positions of those rules or rollouts. While any is listed, the
 * server refuses to delete the segment.
 */
export function UsageSection({ ns, usage }: { ns: string; usage: Query<SegmentUse[]> }) {
  let body;
  if (usage.loading && !usage.data) body = <Loading label="Finding the flags that use this segment…" />;
  else if (usage.error && !usage.data) body = <LoadError error={usage.error} retry={usage.reload} />;
  else if ((usage.data ?? []).length === 0) body = <p class="muted segment-usage-none">No rule or rollout uses this segment: it can be deleted.</p>;
  else
    body = (
      <ul class="segment-usage" data-testid="segment-usage">
        {usage.data!.map((use) => (
          <li key={use.flagKey} data-flag={use.flagKey}>
            <Link href={paths.flag(ns, use.flagKey)} class="mono">
              {use.flagKey}
            </Link>
            {use.flagName && use.flagName !== use.flagKey && <span class="muted"> {use.flagName}</span>}
            <span class="segment-usage-where">
              {use.positions.length === 1 ? use.kind : `${use.kind}s`} {andList(use.positions.map(String))}
            </span>
          </li>
        ))}
      </ul>
    );
  return (
    <section class="segment-section" aria-labelledby="usage-title">
      <header class="segment-section-header">
        <div>
          <h2 id="usage-title">Used by</h2>
          <p class="muted segment-section-note">Flags whose rules or rollouts target this segment. A segment in use cannot be deleted.</p>
        </div>
      </header>
      {body}
    </section>
  );
}
