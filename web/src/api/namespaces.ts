import type { NamespaceCreateJson, NamespaceJson } from '../../../internal/wire/types';
import { http, path } from './http';
import { allPages } from './pages';

/** A namespace, as `/api/v1/namespaces` returns it. */
export type Namespace = NamespaceJson;
export type NamespaceInput = NamespaceCreateJson;

export const namespaces = {
  /** Every namespace: the server's pages followed to the end (there are rarely many). */
  list: () => allPages<Namespace, 'namespaces'>('/api/v1/namespaces', 'namespaces'),
  get: (key: string) => http.get<Namespace>(path`/api/v1/namespaces/${key}`),
  create: (input: NamespaceInput) => http.post<Namespace>('/api/v1/namespaces', input),
  update: (key: string, input: Omit<NamespaceInput, 'key'>) => http.put<Namespace>(path`/api/v1/namespaces/${key}`, input),
  delete: (key: string) => http.delete(path`/api/v1/namespaces/${key}`),
};
