import { http, path } from './http';

/** A namespace, as `/api/v1/namespaces` returns it. */
export interface Namespace {
  key: string;
  name: string;
  description: string;
  /** The `default` namespace is protected: it cannot be deleted. */
  protected: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface NamespaceList {
  namespaces: Namespace[];
  nextPageToken: string;
  totalCount: number;
}

export interface NamespaceInput {
  key: string;
  name: string;
  description: string;
}

export const namespaces = {
  /** Every namespace: the server's pages followed to the end (there are rarely many). */
  async list(): Promise<Namespace[]> {
    const all: Namespace[] = [];
    let pageToken = '';
    do {
      const page = await http.get<NamespaceList>('/api/v1/namespaces', { limit: 100, pageToken });
      all.push(...page.namespaces);
      pageToken = page.nextPageToken;
    } while (pageToken);
    return all;
  },
  get: (key: string) => http.get<Namespace>(path`/api/v1/namespaces/${key}`),
  create: (input: NamespaceInput) => http.post<Namespace>('/api/v1/namespaces', input),
  update: (key: string, input: Omit<NamespaceInput, 'key'>) => http.put<Namespace>(path`/api/v1/namespaces/${key}`, input),
  delete: (key: string) => http.delete(path`/api/v1/namespaces/${key}`),
};
