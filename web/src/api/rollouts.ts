import type { RolloutRequestJson } from '../../../internal/wire/types';
import { rankedResource } from './ranked';
import type { Rollout, SegmentOperator } from './types';

/**
 * A boolean flag's rollouts (Flipt's `…/flags/{key}/rollouts`; the list's array is named `rules`,
 * as Flipt's is). Exactly one of `segment` or `threshold`; the kind cannot change on update.
 * Ranks are 1..n: a new rollout at n+1 is appended (a used rank is refused).
 */
export type RolloutInput =
  | { description: string; threshold: { percentage: number; value: boolean } }
  | { description: string; segment: { segmentKeys: string[]; segmentOperator: SegmentOperator; value: boolean } };

function rolloutBody(input: RolloutInput): RolloutRequestJson {
  if ('threshold' in input) return input;
  const { segmentKeys, segmentOperator, value } = input.segment;
  const segment: RolloutRequestJson['segment'] =
    segmentKeys.length === 1 ? { segmentKey: segmentKeys[0], segmentOperator: 'OR_SEGMENT_OPERATOR', value } : { segmentKeys, segmentOperator, value };
  return { description: input.description, segment };
}

/** list, create, update, delete, order (every rollout's id, in the new order). */
export const rollouts = rankedResource<Rollout, RolloutInput>('rollouts', 'rolloutIds', rolloutBody);
