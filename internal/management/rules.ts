import { invalidField, type Distribution, type Rule } from '../core';
import type { ReadStore, RuleInput, WriteStore } from '../storage';
import { listParams, listResult, type ListResult } from './paging';
import type { CreateRuleRequest, DistributionRequest, ListRequest, RuleRequest } from './requests';
import { required, segmentKeysOf } from './validate';

function ruleInput(req: RuleRequest): RuleInput {
  const segmentKeys = segmentKeysOf(req);
  // With one segment the operator means nothing; Flipt stores OR.
  return { segmentKeys, segmentOperator: segmentKeys.length === 1 ? 'OR_SEGMENT_OPERATOR' : req.segmentOperator };
}

function checkDistribution(req: DistributionRequest): void {
  required(req.variantId, 'variantId');
  if (!(req.rollout >= 0)) throw invalidField('rollout', "must be greater than or equal to '0'");
  if (req.rollout > 100) throw invalidField('rollout', "must be less than or equal to '100'");
}

export function ruleOperations(reads: ReadStore, writes: WriteStore) {
  return {
    listRules: async (ns: string, flagKey: string, req: ListRequest): Promise<ListResult<Rule>> => {
      required(flagKey, 'flagKey');
      return listResult(await reads.listRules(ns, flagKey, listParams(req, { limitRequired: true })));
    },

    getRule: (ns: string, flagKey: string, id: string): Promise<Rule> => {
      required(id, 'id');
      required(flagKey, 'flagKey');
      return reads.getRule(ns, flagKey, id);
    },

    createRule: (ns: string, flagKey: string, req: CreateRuleRequest): Promise<Rule> => {
      required(flagKey, 'flagKey');
      const input = ruleInput(req);
      if (req.rank <= 0) throw invalidField('rank', 'must be greater than 0');
      return writes.createRule(ns, flagKey, req.rank, input);
    },

    updateRule: (ns: string, flagKey: string, id: string, req: RuleRequest): Promise<Rule> => {
      required(id, 'id');
      required(flagKey, 'flagKey');
      return writes.updateRule(ns, flagKey, id, ruleInput(req));
    },

    deleteRule: (ns: string, flagKey: string, id: string): Promise<void> => {
      required(id, 'id');
      required(flagKey, 'flagKey');
      return writes.deleteRule(ns, flagKey, id);
    },

    orderRules: (ns: string, flagKey: string, ruleIds: string[]): Promise<void> => {
      required(flagKey, 'flagKey');
      if (ruleIds.length < 2) throw invalidField('ruleIds', 'must contain atleast 2 elements');
      return writes.orderRules(ns, flagKey, ruleIds);
    },

    createDistribution: (ns: string, flagKey: string, ruleId: string, req: DistributionRequest): Promise<Distribution> => {
      required(flagKey, 'flagKey');
      required(ruleId, 'ruleId');
      checkDistribution(req);
      return writes.createDistribution(ns, flagKey, ruleId, req);
    },

    updateDistribution: (
      ns: string,
      flagKey: string,
      ruleId: string,
      id: string,
      req: DistributionRequest,
    ): Promise<Distribution> => {
      required(id, 'id');
      required(flagKey, 'flagKey');
      required(ruleId, 'ruleId');
      checkDistribution(req);
      return writes.updateDistribution(ns, flagKey, ruleId, id, req);
    },

    deleteDistribution: (ns: string, flagKey: string, ruleId: string, id: string, variantId: string): Promise<void> => {
      required(id, 'id');
      required(flagKey, 'flagKey');
      required(ruleId, 'ruleId');
      required(variantId, 'variantId');
      return writes.deleteDistribution(ns, flagKey, ruleId, id, variantId);
    },
  };
}
