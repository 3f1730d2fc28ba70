import { DEFAULT_NAMESPACE, invalidField, type AuditOrigin } from '../core';
import { decodeDocuments, type DecodeOptions } from './decode';
import { IMPORT_IN_PARTS_FROM, decodeInParts } from './decode-parts';
import { namespaceKeyOf, type Document } from './document';
import { ExtError, type ExtWarning } from './errors';
import { importParts, importStream, type ImportResult, type ImportTarget } from './importer';
import { lineOf } from './positions';

/**
 * A whole import sent as one request (Pennon's bulk import route, `pennon flag import
 * --address`): the document stream as text, decoded, checked and written in one transaction
 * on the server, as an in-process import is. Into one namespace, documents that name none go
 * to it and one that names another is refused; `drop` is for a whole-instance import only.
 */

export interface BulkImportOptions extends Pick<DecodeOptions, 'encoding'> {
  /** Import into this namespace only (null: the stream's documents name theirs, `default` if none). */
  namespace: string | null;
  drop: boolean;
  skipExisting: boolean;
}

export interface BulkImportResult extends ImportResult {
  /** Unknown keys that were ignored, each with its document and line. */
  warnings: ExtWarning[];
}

/**
 * A whole import from its text (UTF-8, in the chunks it arrived in): `importBulk` on a store,
 * or the same run on a thread of its own.
 */
/** `origin`: who the audit trail records the import as (the system's without it). */
export type BulkImporter = (body: readonly Uint8Array[], options: BulkImportOptions, origin?: AuditOrigin) => Promise<BulkImportResult>;

export async function importBulk(target: ImportTarget, text: string, options: BulkImportOptions, partsFrom = IMPORT_IN_PARTS_FROM): Promise<BulkImportResult> {
  if (options.namespace !== null && options.drop) {
    throw invalidField('drop', 'deletes every namespace, so it is for POST /api/v1/import only, not an import into one namespace');
  }
  // Version 1.4 at most, as `pennon flag import` and Flipt v1's importer read.
  const decode = { encoding: options.encoding, maxVersion: '1.4' };
  const into = options.namespace === null ? null : options.namespace === '' ? DEFAULT_NAMESPACE : options.namespace;
  const importOptions = { drop: options.drop, skipExisting: options.skipExisting };
  // A large stream a part at a time, as `pennon flag import` reads one (decode-parts.ts).
  const parted = text.length >= partsFrom && target.transaction ? decodeInParts(text, decode) : null;
  if (parted) {
    if (into !== null) importInto(into, parted.heads, parted.warnings);
    const result = await importParts(target, parted, importOptions);
    return { ...result, warnings: parted.warnings };
  }
  const stream = decodeDocuments(text, decode);
  if (into !== null) importInto(into, stream.documents, stream.warnings);
  const result = await importStream(target, stream, importOptions);
  return { ...result, warnings: stream.warnings };
}

/** Documents that name no namespace go to `into`; one that names another is refused. */
function importInto(into: string, documents: Document[], warnings: ExtWarning[]): void {
  for (const [i, doc] of documents.entries()) {
    if (doc.namespace === undefined) {
      doc.namespace = into;
      // Read as a document of `default`: its warnings are about this namespace's objects.
      for (const w of warnings) if (w.location.document === i + 1 && w.location.namespace !== undefined) w.location.namespace = into;
    } else if (namespaceKeyOf(doc) !== into) {
      throw new ExtError(`the document is for namespace ${JSON.stringify(namespaceKeyOf(doc))}, not ${JSON.stringify(into)}, the namespace imported into`, {
        document: i + 1,
        field: 'namespace',
        line: lineOf(doc, 'namespace'),
      });
    }
  }
}
