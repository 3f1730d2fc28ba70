/**
 * Flipt's import/export document format: decoding (YAML streams, JSON, JSON lines) with
 * Flipt's version gates, validation of a whole stream before anything is written, importing
 * into a store (all-or-nothing when the store has transactions), exporting, and encoding.
 */
export type * from './document';
export { encodingOf, namespaceKeyOf } from './document';
export { decodeDocuments, parseJsonStream, type DecodeOptions, type DecodedStream } from './decode';
export { IMPORT_IN_PARTS_FROM, ITEMS_PER_PART, decodeInParts, type DecodedPart, type PartedStream } from './decode-parts';
export { importBulk, type BulkImporter, type BulkImportOptions, type BulkImportResult } from './bulk';
export { encodeDocuments, exportHeader } from './encode';
export {
  ExtError,
  PartialImportError,
  describeCounts,
  describeLocation,
  describeWarning,
  totalOf,
  warningLines,
  zeroCounts,
  type ExtLocation,
  type ExtWarning,
  type ImportCounts,
} from './errors';
export { exportDocuments, type ExportOptions, type ExportSource } from './exporter';
export { exportText, streamOptions, type BulkExportOptions, type BulkExporter, type StreamExportOptions, type TextSink } from './export-stream';
export {
  applyPlan,
  importParts,
  importStream,
  importText,
  namespacesOf,
  readExistingState,
  type ImportOptions,
  type ImportProgress,
  type ImportResult,
  type ImportTarget,
} from './importer';
export { goMarshal, sortKeysDeep } from './json';
export { droppedState, planImport, type DocumentPlan, type ExistingState, type FlagPlan, type ImportPlan, type PlanOptions, type RulePlan, type SegmentPlan } from './plan';
export { lineOf } from './positions';
export { EXPORT_VERSION, KNOWN_VERSIONS, parseTolerant, versionString, type Version } from './version';
