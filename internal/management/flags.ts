import type { Flag, Variant } from '../core';
import type { ReadStore, WriteStore } from '../storage';
import { listParams, listResult, type ListResult } from './paging';
import type { CreateFlagRequest, ListRequest, UpdateFlagRequest, VariantRequest } from './requests';
import { bounded, required, requiredKey, validAttachment } from './validate';

const isEmpty = (o: Record<string, unknown> | undefined) => o !== undefined && Object.keys(o).length === 0;

export function flagOperations(reads: ReadStore, writes: WriteStore) {
  return {
    listFlags: async (ns: string, req: ListRequest): Promise<ListResult<Flag>> =>
      listResult(await reads.listFlags(ns, listParams(req, { limitRequired: true }))),

    getFlag: (ns: string, key: string): Promise<Flag> => {
      required(key, 'key');
      return reads.getFlag(ns, key);
    },

    createFlag: async (ns: string, req: CreateFlagRequest): Promise<Flag> => {
      requiredKey(req.key);
      required(req.name, 'name');
      const flag = await writes.createFlag(ns, { ...req, metadata: isEmpty(req.metadata) ? null : (req.metadata ?? null) });
      // Flipt echoes the metadata it was sent, even an empty object.
      return isEmpty(req.metadata) ? { ...flag, metadata: {} } : flag;
    },

    /** A full replace, as Flipt does: absent `enabled` turns the flag off, absent default clears it. */
    updateFlag: (ns: string, key: string, req: UpdateFlagRequest): Promise<Flag> => {
      required(key, 'key');
      required(req.name, 'name');
      return writes.updateFlag(ns, key, {
        name: req.name,
        description: req.description,
        enabled: req.enabled,
        defaultVariantId: req.defaultVariantId,
        // Absent: unchanged; {}: cleared; anything else: replaced.
        metadata: req.metadata === undefined ? undefined : isEmpty(req.metadata) ? null : req.metadata,
      });
    },

    deleteFlag: (ns: string, key: string): Promise<void> => {
      required(key, 'key');
      return writes.deleteFlag(ns, key);
    },

    createVariant: (ns: string, flagKey: string, req: VariantRequest): Promise<Variant> => {
      required(flagKey, 'flagKey');
      required(req.key, 'key');
      bounded(req.name, 'name');
      return writes.createVariant(ns, flagKey, { ...req, attachment: validAttachment(req.attachment) });
    },

    updateVariant: (ns: string, flagKey: string, id: string, req: VariantRequest): Promise<Variant> => {
      required(id, 'id');
      required(flagKey, 'flagKey');
      required(req.key, 'key');
      bounded(req.name, 'name');
      return writes.updateVariant(ns, flagKey, id, { ...req, attachment: validAttachment(req.attachment) });
    },

    deleteVariant: (ns: string, flagKey: string, id: string): Promise<void> => {
      required(id, 'id');
      required(flagKey, 'flagKey');
      return writes.deleteVariant(ns, flagKey, id);
    },
  };
}
