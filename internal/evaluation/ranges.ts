import { bucketBounds } from './hash';

/**
 * A rule's distributions as bucket ranges, said the way a reader needs them. Flipt lays the
 * distributions end to end over the buckets 0–999 in their order (internal/server/evaluation/
 * evaluation.go) but does not refuse a rule whose distributions add up to more than 100%: the
 * ranges past 999 then exist on paper only, since no entity's bucket is ever 1000 or more.
 * No Node APIs: the dashboard shows these too.
 */
export const BUCKETS = 1000;

export interface BucketRange {
  /** First and last bucket, inclusive. */
  from: number;
  to: number;
  /** The variant served; null for the undistributed tail (no variant). */
  variant: string | null;
}

export interface DistributionShare {
  variant: string;
  /** The rollout as written (percent). */
  rollout: number;
  /** What evaluation can actually serve it (percent, to a tenth): less when its range runs past 999. */
  served: number;
  /** Its range runs past bucket 999, so `served` falls short of `rollout` because of the sum. */
  cut: boolean;
}

export interface RuleRanges {
  /** 0–999 covered in order, the undistributed tail (variant null) last; empty ranges left out. */
  reachable: BucketRange[];
  /** The parts of distributions past bucket 999: never chosen. */
  unreachable: BucketRange[];
  /** Per distribution with a positive rollout, in order. */
  shares: DistributionShare[];
  /** The rollouts' sum (percent, two decimals). */
  total: number;
}

/** From a compiled rule's cumulative bounds (`CompiledRule.bounds`) and its variants' keys. */
export function rangesFromBounds(bounds: readonly number[], variants: readonly string[], rollouts: readonly number[]): RuleRanges {
  const reachable: BucketRange[] = [];
  const unreachable: BucketRange[] = [];
  const shares: DistributionShare[] = [];
  let start = 0;
  bounds.forEach((end, i) => {
    const variant = variants[i];
    const lastReachable = Math.min(end, BUCKETS) - 1;
    if (lastReachable >= start) reachable.push({ from: start, to: lastReachable, variant });
    const hiddenFrom = Math.max(start, BUCKETS);
    if (end - 1 >= hiddenFrom) unreachable.push({ from: hiddenFrom, to: end - 1, variant });
    shares.push({ variant, rollout: rollouts[i], served: Math.max(0, lastReachable - start + 1) / 10, cut: end > BUCKETS });
    start = Math.max(start, end);
  });
  if (start < BUCKETS) reachable.push({ from: start, to: BUCKETS - 1, variant: null });
  const total = Math.round(rollouts.reduce((sum, r) => sum + r, 0) * 100) / 100;
  return { reachable, unreachable, shares, total };
}

/** From distributions as the API lists them (a rollout of 0 has no range, as in evaluation). */
export function distributionRanges(distributions: readonly { variant: string; rollout: number }[]): RuleRanges {
  const valid = distributions.filter((d) => d.rollout > 0);
  const rollouts = valid.map((d) => d.rollout);
  return rangesFromBounds(bucketBounds(rollouts), valid.map((d) => d.variant), rollouts);
}
