import type { Namespace } from '../core';
import type { ReadStore, WriteStore } from '../storage';
import { listParams, listResult, type ListResult } from './paging';
import type { ListRequest, NamespaceRequest } from './requests';
import { required, requiredKey } from './validate';

export function namespaceOperations(reads: ReadStore, writes: WriteStore) {
  return {
    listNamespaces: async (req: ListRequest): Promise<ListResult<Namespace>> =>
      listResult(await reads.listNamespaces(listParams(req, { limitRequired: false }))),

    getNamespace: (key: string): Promise<Namespace> => {
      required(key, 'key');
      return reads.getNamespace(key);
    },

    createNamespace: (req: NamespaceRequest): Promise<Namespace> => {
      requiredKey(req.key);
      required(req.name, 'name');
      return writes.createNamespace(req);
    },

    updateNamespace: (req: NamespaceRequest): Promise<Namespace> => {
      required(req.key, 'key');
      required(req.name, 'name');
      return writes.updateNamespace(req);
    },

    deleteNamespace: (key: string, force: boolean): Promise<void> => {
      required(key, 'key');
      return writes.deleteNamespace(key, force);
    },
  };
}
