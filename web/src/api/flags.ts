import { http, path } from './http';
import { allPages } from './pages';
import type { Flag } from './types';

/**
 * Flags (reads here; the flags screen adds its writes to this file). Other screens — rules,
 * rollouts, the console — read flags through these.
 */
export const flags = {
  list: (ns: string) => allPages<Flag, 'flags'>(path`/api/v1/namespaces/${ns}/flags`, 'flags'),
  get: (ns: string, key: string) => http.get<Flag>(path`/api/v1/namespaces/${ns}/flags/${key}`),
};
