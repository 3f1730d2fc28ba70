import type { FlagCreateJson, FlagUpdateJson, VariantRequestJson } from '../../../internal/wire/types';
import { http, path } from './http';
import { allPages } from './pages';
import type { Flag, Variant } from './types';

/** What `POST …/flags` takes. `metadata` must be a JSON object; left out, the flag has none. */
export type FlagInput = FlagCreateJson;

/**
 * What `PUT …/flags/{key}` takes: Flipt's PUT replaces, so a caller sends the flag's current
 * values for what it does not change (`updateOf`).
 */
export type FlagUpdate = FlagUpdateJson;

/** What `POST`/`PUT …/variants` take. `attachment` is JSON text ('' for none). */
export type VariantInput = VariantRequestJson;

/** The update that keeps everything of `flag` as it is, for callers that change one part. */
export function updateOf(flag: Flag): FlagUpdate {
  return { name: flag.name, description: flag.description, enabled: flag.enabled, defaultVariantId: flag.defaultVariant?.id ?? '' };
}

/** Flags and their variants. Other screens (rules, rollouts, the console) read flags through these. */
export const flags = {
  list: (ns: string) => allPages<Flag, 'flags'>(path`/api/v1/namespaces/${ns}/flags`, 'flags'),
  get: (ns: string, key: string) => http.get<Flag>(path`/api/v1/namespaces/${ns}/flags/${key}`),
  create: (ns: string, input: FlagInput) => http.post<Flag>(path`/api/v1/namespaces/${ns}/flags`, input),
  update: (ns: string, key: string, input: FlagUpdate) => http.put<Flag>(path`/api/v1/namespaces/${ns}/flags/${key}`, input),
  delete: (ns: string, key: string) => http.delete(path`/api/v1/namespaces/${ns}/flags/${key}`),

  createVariant: (ns: string, flagKey: string, input: VariantInput) => http.post<Variant>(path`/api/v1/namespaces/${ns}/flags/${flagKey}/variants`, input),
  updateVariant: (ns: string, flagKey: string, id: string, input: VariantInput) =>
    http.put<Variant>(path`/api/v1/namespaces/${ns}/flags/${flagKey}/variants/${id}`, input),
  deleteVariant: (ns: string, flagKey: string, id: string) => http.delete(path`/api/v1/namespaces/${ns}/flags/${flagKey}/variants/${id}`),

  /**
   * Copies `flag` (its fields, metadata, variants and default variant) into namespace `to`.
   * Flipt has no copy call: this is the API calls Flipt's UI makes, one by one. A failure
   * part-way (the key already taken in `to`, most often, which fails first) is thrown as is;
   * what was created before it stays.
   */
  copy: async (flag: Flag, to: string): Promise<Flag> => {
    const metadata = flag.metadata && Object.keys(flag.metadata).length > 0 ? flag.metadata : undefined;
    await flags.create(to, { key: flag.key, name: flag.name, description: flag.description, enabled: flag.enabled, type: flag.type, metadata });
    const ids = new Map<string, string>();
    for (const v of flag.variants) {
      const created = await flags.createVariant(to, flag.key, { key: v.key, name: v.name, description: v.description, attachment: v.attachment });
      ids.set(v.id, created.id);
    }
    const defaultId = flag.defaultVariant ? ids.get(flag.defaultVariant.id) : undefined;
    if (defaultId) return flags.update(to, flag.key, { ...updateOf(flag), defaultVariantId: defaultId });
    return flags.get(to, flag.key);
  },
};
