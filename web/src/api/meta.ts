import { http, type RequestOptions } from './http';

/** `GET /meta/info` (Flipt's shape; fields left out when empty, as Go's `omitempty` does). */
export interface MetaInfo {
  version: string;
  commit?: string;
  buildDate?: string;
  isRelease: boolean;
  updateAvailable: boolean;
  authentication: { required: boolean };
  storage: { type: string; readOnly?: boolean };
  ui?: { theme?: string };
}

export const meta = {
  info: (options?: RequestOptions) => http.get<MetaInfo>('/meta/info', undefined, options),
};
