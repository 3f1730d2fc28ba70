import { http, path } from './http';
import { allPages } from './pages';
import type { Rollout, SegmentOperator } from './types';

/**
 * A boolean flag's rollouts (Flipt's `…/flags/{key}/rollouts`; the list's array is named `rules`,
 * as Flipt's is). Exactly one of `segment` or `threshold`; the kind cannot change on update.
 * Ranks are 1..n: a new rollout at n+1 is appended (a used rank is refused).
 */
export type RolloutInput =
  | { description: string; threshold: { percentage: number; value: boolean } }
  | { description: string; segment: { segmentKeys: string[]; segmentOperator: SegmentOperator; value: boolean } };

function rolloutBody(input: RolloutInput) {
  if ('threshold' in input) return input;
  const { segmentKeys, segmentOperator, value } = input.segment;
  const segment = segmentKeys.length === 1 ? { segmentKey: segmentKeys[0], segmentOperator: 'OR_SEGMENT_OPERATOR', value } : { segmentKeys, segmentOperator, value };
  return { description: input.description, segment };
}

const base = (ns: string, flag: string) => path`/api/v1/namespaces/${ns}/flags/${flag}/rollouts`;

export const rollouts = {
  /** In rank order. */
  list: async (ns: string, flag: string) => (await allPages<Rollout, 'rules'>(base(ns, flag), 'rules')).sort((a, b) => a.rank - b.rank),
  create: (ns: string, flag: string, input: RolloutInput & { rank: number }) => http.post<Rollout>(base(ns, flag), { ...rolloutBody(input), rank: input.rank }),
  update: (ns: string, flag: string, id: string, input: RolloutInput) => http.put<Rollout>(base(ns, flag) + path`/${id}`, rolloutBody(input)),
  delete: (ns: string, flag: string, id: string) => http.delete(base(ns, flag) + path`/${id}`),
  /** Every rollout's id, in the new order. */
  order: (ns: string, flag: string, rolloutIds: string[]) => http.put<Record<string, never>>(base(ns, flag) + '/order', { rolloutIds }),
};
