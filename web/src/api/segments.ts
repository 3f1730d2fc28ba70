import { http, path } from './http';
import { allPages } from './pages';
import type { Segment } from './types';

/** Segments (reads here; the segments screen adds its writes to this file). */
export const segments = {
  list: (ns: string) => allPages<Segment, 'segments'>(path`/api/v1/namespaces/${ns}/segments`, 'segments'),
  get: (ns: string, key: string) => http.get<Segment>(path`/api/v1/namespaces/${ns}/segments/${key}`),
};
