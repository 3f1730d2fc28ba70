import { invalid, invalidField, type Rollout } from '../core';
import type { ReadStore, RolloutInput, WriteStore } from '../storage';
import { listParams, listResult, type ListResult } from './paging';
import type { CreateRolloutRequest, ListRequest, RolloutRequest } from './requests';
import { required, segmentKeysOf } from './validate';

/** The rollout's rule, checked as Flipt checks it; null when the request carries none. */
function rolloutInput(req: RolloutRequest): RolloutInput | null {
  if (req.threshold) {
    const { percentage } = req.threshold;
    if (!(percentage >= 0 && percentage <= 100)) throw invalidField('threshold.percentage', 'must be within range [0, 100]');
    return { description: req.description, segment: null, threshold: req.threshold };
  }
  if (req.segment) {
    const segmentKeys = segmentKeysOf(req.segment);
    return {
      description: req.description,
      threshold: null,
      segment: {
        segmentKeys,
        segmentOperator: segmentKeys.length === 1 ? 'OR_SEGMENT_OPERATOR' : req.segment.segmentOperator,
        value: req.segment.value,
      },
    };
  }
  return null;
}

export function rolloutOperations(reads: ReadStore, writes: WriteStore) {
  return {
    listRollouts: async (ns: string, flagKey: string, req: ListRequest): Promise<ListResult<Rollout>> => {
      required(flagKey, 'flagKey');
      return listResult(await reads.listRollouts(ns, flagKey, listParams(req, { limitRequired: false })));
    },

    getRollout: (ns: string, flagKey: string, id: string): Promise<Rollout> => {
      required(id, 'id');
      required(flagKey, 'flagKey');
      return reads.getRollout(ns, flagKey, id);
    },

    createRollout: (ns: string, flagKey: string, req: CreateRolloutRequest): Promise<Rollout> => {
      required(flagKey, 'flagKey');
      const input = rolloutInput(req);
      if (!input) throw invalid('rollout rule is missing');
      return writes.createRollout(ns, flagKey, req.rank, input);
    },

    updateRollout: (ns: string, flagKey: string, id: string, req: RolloutRequest): Promise<Rollout> => {
      required(id, 'id');
      required(flagKey, 'flagKey');
      const input = rolloutInput(req);
      if (!input) throw invalidField('rule', 'invalid rollout rule type');
      return writes.updateRollout(ns, flagKey, id, input);
    },

    deleteRollout: (ns: string, flagKey: string, id: string): Promise<void> => {
      required(id, 'id');
      required(flagKey, 'flagKey');
      return writes.deleteRollout(ns, flagKey, id);
    },

    orderRollouts: (ns: string, flagKey: string, rolloutIds: string[]): Promise<void> => {
      required(flagKey, 'flagKey');
      if (rolloutIds.length < 2) throw invalidField('rolloutIds', 'must contain atleast 2 elements');
      return writes.orderRollouts(ns, flagKey, rolloutIds);
    },
  };
}
