import type { Constraint, Segment } from '../core';
import type { ReadStore, WriteStore } from '../storage';
import { validateConstraint } from './constraints';
import { listParams, listResult, type ListResult } from './paging';
import type { ConstraintRequest, CreateSegmentRequest, ListRequest, SegmentRequest } from './requests';
import { required, requiredKey } from './validate';

export function segmentOperations(reads: ReadStore, writes: WriteStore) {
  return {
    listSegments: async (ns: string, req: ListRequest): Promise<ListResult<Segment>> =>
      listResult(await reads.listSegments(ns, listParams(req, { limitRequired: true }))),

    getSegment: (ns: string, key: string): Promise<Segment> => {
      required(key, 'key');
      return reads.getSegment(ns, key);
    },

    createSegment: (ns: string, req: CreateSegmentRequest): Promise<Segment> => {
      requiredKey(req.key);
      required(req.name, 'name');
      return writes.createSegment(ns, req.key, { name: req.name, description: req.description, matchType: req.matchType });
    },

    updateSegment: (ns: string, key: string, req: SegmentRequest): Promise<Segment> => {
      required(key, 'key');
      required(req.name, 'name');
      return writes.updateSegment(ns, key, req);
    },

    deleteSegment: (ns: string, key: string): Promise<void> => {
      required(key, 'key');
      return writes.deleteSegment(ns, key);
    },

    createConstraint: (ns: string, segmentKey: string, req: ConstraintRequest): Promise<Constraint> => {
      required(segmentKey, 'segmentKey');
      return writes.createConstraint(ns, segmentKey, validateConstraint(req));
    },

    updateConstraint: (ns: string, segmentKey: string, id: string, req: ConstraintRequest): Promise<Constraint> => {
      required(id, 'id');
      required(segmentKey, 'segmentKey');
      return writes.updateConstraint(ns, segmentKey, id, validateConstraint(req));
    },

    deleteConstraint: (ns: string, segmentKey: string, id: string): Promise<void> => {
      required(id, 'id');
      required(segmentKey, 'segmentKey');
      return writes.deleteConstraint(ns, segmentKey, id);
    },
  };
}
