import type { DistributionRequestJson, RuleRequestJson } from '../../../internal/wire/types';
import { http, path } from './http';
import { rankedResource } from './ranked';
import type { Distribution, Rule, SegmentOperator } from './types';

/**
 * A variant flag's rules and their distributions (Flipt's `…/flags/{key}/rules`). Our ranks are
 * dense 1..n (docs/DECISIONS.md): a new rule at rank n+1 is appended, `order` with every id
 * sets the ranks to the list's positions, a delete re-ranks the rest.
 */
export interface RuleInput {
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
}

/** One segment goes as `segmentKey` (Flipt forces OR then), several as `segmentKeys`, as Flipt's UI sends them. */
function ruleBody(input: RuleInput): RuleRequestJson {
  return input.segmentKeys.length === 1
    ? { segmentKey: input.segmentKeys[0], segmentOperator: 'OR_SEGMENT_OPERATOR' }
    : { segmentKeys: input.segmentKeys, segmentOperator: input.segmentOperator };
}

const { base, ...ranked } = rankedResource<Rule, RuleInput>('rules', 'ruleIds', ruleBody);

export const rules = {
  ...ranked,
  createDistribution: (ns: string, flag: string, ruleId: string, input: DistributionRequestJson) =>
    http.post<Distribution>(base(ns, flag) + path`/${ruleId}/distributions`, input),
  updateDistribution: (ns: string, flag: string, ruleId: string, id: string, input: DistributionRequestJson) =>
    http.put<Distribution>(base(ns, flag) + path`/${ruleId}/distributions/${id}`, input),
  /** Flipt requires the distribution's variant id in the query. */
  deleteDistribution: (ns: string, flag: string, ruleId: string, id: string, variantId: string) =>
    http.delete(base(ns, flag) + path`/${ruleId}/distributions/${id}?variantId=${variantId}`),
};

/** A rule's segment keys whichever way the wire gives them (one → `segmentKey`, several → `segmentKeys`). */
export { segmentKeysFromJson as segmentKeysOf } from '../../../internal/wire/decode';
