import { invalid, invalidField, type Page } from '../core';
import type { ListParams } from '../storage';
import type { ListRequest } from './requests';

/**
 * Management-list paging as Flipt's SQL backend does it: no default page size (limit 0 = all),
 * a page token that is base64 JSON `{"key", "offset"}` (only the offset is read back) and
 * wins over `offset`.
 */
export function listParams(req: ListRequest, options: { limitRequired: boolean }): ListParams {
  if (options.limitRequired && req.limit === 0 && (req.offset > 0 || req.pageToken !== '')) {
    throw invalid('limit must be set when offset or pageToken is set');
  }
  if (req.limit < 0) throw invalidField('limit', 'must not be negative');
  if (req.offset < 0) throw invalidField('offset', 'must not be negative');
  const offset = req.pageToken !== '' ? decodePageToken(req.pageToken) : req.offset;
  return { limit: req.limit, offset };
}

export function decodePageToken(token: string): number {
  const fail = () => invalid(`pageToken is not valid: "${token}"`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(token)) throw fail();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch {
    throw fail();
  }
  const offset = (parsed as { offset?: unknown } | null)?.offset ?? 0;
  // Flipt reads the offset as a uint64; ours must be exact to reach the database as an
  // integer (1e300 was bound as a float: SQLite's "datatype mismatch", a 500).
  if (typeof parsed !== 'object' || parsed === null || !Number.isSafeInteger(offset) || (offset as number) < 0) throw fail();
  return offset as number;
}

export function encodePageToken(next: Page<unknown>['next']): string {
  return next === null ? '' : Buffer.from(JSON.stringify({ key: next.key, offset: next.offset })).toString('base64');
}

export interface ListResult<T> {
  items: T[];
  nextPageToken: string;
  totalCount: number;
}

export function listResult<T>(page: Page<T>): ListResult<T> {
  return { items: page.items, nextPageToken: encodePageToken(page.next), totalCount: page.total };
}
