import type { ImportCounts } from '../ext';
import { ApiError, type HttpApi } from './http';

/**
 * `pennon flag import --address` through Pennon's bulk import route: the whole document stream
 * in one request, written by the server in one transaction. A server without the route (Flipt,
 * or an older Pennon) is recognised by its "no such route" answer, so the caller can fall back
 * to creating objects one request at a time.
 */

export interface BulkAnswer {
  created: ImportCounts;
  skipped: { flags: string[]; segments: string[] };
  dropped: string[];
  /** Unknown keys the server ignored (what the caller's own decoding warned about too). */
  warnings: string[];
}

export interface BulkRequest {
  encoding: 'yaml' | 'json';
  drop: boolean;
  skipExisting: boolean;
}

/** The server answers once the transaction has committed: a large import takes a while. */
const IMPORT_TIMEOUT_MS = 10 * 60_000;

/**
 * The route for a stream that writes to `namespaces`: the one-namespace route when it names a
 * single namespace (what a namespace-scoped token may use), the whole-instance route otherwise
 * and for `drop`.
 */
export function bulkImportPath(namespaces: string[], drop: boolean): string {
  return namespaces.length === 1 && !drop ? `/api/v1/namespaces/${encodeURIComponent(namespaces[0])}/import` : '/api/v1/import';
}

/** grpc-gateway's routing answers (Flipt's, and ours for a route we do not have). */
export function isMissingRoute(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  return (err.status === 404 && err.serverMessage === 'Not Found') || (err.status === 501 && err.serverMessage === 'Method Not Allowed');
}

/**
 * Whether the server has the route: an empty import, which writes nothing, is sent first, so
 * that a server without the route is never sent a large body it will not read.
 */
export async function hasBulkImport(api: HttpApi, path: string): Promise<boolean> {
  try {
    await api.postText(path, '', 'application/yaml', 30_000);
    return true;
  } catch (err) {
    if (isMissingRoute(err)) return false;
    throw err;
  }
}

export async function sendBulkImport(api: HttpApi, path: string, text: string, request: BulkRequest): Promise<BulkAnswer> {
  const query = `?format=${request.encoding}${request.drop ? '&drop=true' : ''}${request.skipExisting ? '&skipExisting=true' : ''}`;
  try {
    return await api.postText<BulkAnswer>(path + query, text, request.encoding === 'json' ? 'application/json' : 'application/yaml', IMPORT_TIMEOUT_MS);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // The document's own mistakes read as they do in-process (document, field, line).
    if (err.status === 400 && err.serverMessage !== '') throw new ApiError(err.serverMessage, 400, { address: err.address, serverMessage: err.serverMessage });
    if (err.status === 0 && err.code !== 'ECONNREFUSED') {
      throw new ApiError(
        `${err.message}: the connection ended before ${api.address} answered, so the import may or may not have been applied ` +
          '(it is one transaction: all of it or nothing); `pennon flag export --address` shows which',
        0,
        { address: err.address, code: err.code },
      );
    }
    throw err;
  }
}

/**
 * `pennon flag export --address` through Pennon's bulk export route: one request, read from one
 * consistent state, streamed to `onChunk`. `namespaces` null asks for every namespace. A server
 * without the route (Flipt, an older Pennon, one whose flags are in Git) answers as for any
 * missing route: `isMissingRoute` tells, and the caller exports through the API's lists.
 */
export async function streamBulkExport(
  api: HttpApi,
  request: { namespaces: string[] | null; sortByKey: boolean; encoding: 'yaml' | 'json' },
  onChunk: (chunk: Uint8Array) => void | Promise<void>,
): Promise<void> {
  const { namespaces, sortByKey, encoding } = request;
  const one = namespaces !== null && namespaces.length === 1;
  const path = one ? `/api/v1/namespaces/${encodeURIComponent(namespaces[0])}/export` : '/api/v1/export';
  const query = new URLSearchParams({ format: encoding });
  if (sortByKey) query.set('sortByKey', 'true');
  if (namespaces !== null && !one) query.set('namespaces', namespaces.join(','));
  await api.stream(`${path}?${query.toString()}`, onChunk, EXPORT_IDLE_MS);
}

/** The longest the server may go quiet during an export (its first chunk comes after a page of flags). */
const EXPORT_IDLE_MS = 60_000;
