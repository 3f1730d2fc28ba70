import type { RuleRanges } from '../../../internal/evaluation';
import { andList } from './words';

/**
 * Words for a rule whose distributions add up to more than 100% (Flipt's API accepts one, its
 * UI refuses to save one): what each cut distribution really gets. The flag page's rules and
 * the console say the same.
 *
 *   cutShares(distributionRanges([{ variant: 'a', rollout: 60 }, { variant: 'b', rollout: 60 }]))
 *   // "b is served to 40%, not 60%"
 */
export function cutShares(ranges: RuleRanges): string {
  const cut = ranges.shares.filter((s) => s.cut);
  const said = cut.map((s) => (s.served === 0 ? `${s.variant} (${s.rollout}%) is never served` : `${s.variant} is served to ${s.served}%, not ${s.rollout}%`));
  return andList(said);
}
