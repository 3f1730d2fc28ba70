import type { MetaInfoJson } from '../../../internal/wire/types';
import { http, type RequestOptions } from './http';

/** `GET /meta/info` (Flipt's shape; fields left out when empty, as Go's `omitempty` does). */
export type MetaInfo = MetaInfoJson;

export const meta = {
  info: (options?: RequestOptions) => http.get<MetaInfo>('/meta/info', undefined, options),
};
