import { http, path } from './http';
import { allPages } from './pages';

/**
 * The requests a flag's ranked list answers — rules (`…/flags/{key}/rules`) and rollouts
 * (`…/flags/{key}/rollouts`) alike: list in rank order (both lists' arrays are named `rules`,
 * as Flipt's are), create at a rank, update, delete, and `order` with every id under `idsField`.
 * `body` turns the screen's input into what goes on the wire.
 */
export function rankedResource<T extends { rank: number }, I>(resource: 'rules' | 'rollouts', idsField: 'ruleIds' | 'rolloutIds', body: (input: I) => object) {
  const base = (ns: string, flag: string) => path`/api/v1/namespaces/${ns}/flags/${flag}/` + resource;
  return {
    base,
    /** In rank order. */
    list: async (ns: string, flag: string) => (await allPages<T, 'rules'>(base(ns, flag), 'rules')).sort((a, b) => a.rank - b.rank),
    create: (ns: string, flag: string, input: I & { rank: number }) => http.post<T>(base(ns, flag), { ...body(input), rank: input.rank }),
    update: (ns: string, flag: string, id: string, input: I) => http.put<T>(base(ns, flag) + path`/${id}`, body(input)),
    delete: (ns: string, flag: string, id: string) => http.delete(base(ns, flag) + path`/${id}`),
    /** Every id, in the new order: ranks become the positions (1..n). */
    order: (ns: string, flag: string, ids: string[]) => http.put<Record<string, never>>(base(ns, flag) + '/order', { [idsField]: ids }),
  };
}
