import type { Document, Encoding } from './document';
import { ExtError, type ExtWarning } from './errors';
import { excerpt, jsonErrorOffset, positionOf } from './excerpt';
import { MAX_DOCUMENT_DEPTH } from './document';
import { nestsDeeperThan } from '../core/json-depth';
import { lineOf, sourceOf } from './positions';
import { DocumentReader } from './read';
import { isSupported, knownVersion, parseTolerant, type Version } from './version';
import type { RawDocument } from './raw';
import { parseYamlStream } from './yaml';
import { valueEnd } from './json-scan';

export interface DecodeOptions {
  encoding: Encoding;
  /** The newest version accepted, and the version of a stream that names none: "1.4" (CLI) or "1.6" (Git). */
  maxVersion?: string;
  /** Also refuse unknown fields and apply the schema-only gates, as Flipt's CUE validation does. */
  strict?: boolean;
}

export interface DecodedStream {
  /** The first document's version (the newest supported one when it names none). */
  version: Version;
  documents: Document[];
  /** Keys the format does not know, which were ignored (each with its document and line). */
  warnings: ExtWarning[];
}

/**
 * Text → documents. YAML: a `---`-separated stream. JSON: one object, or several (one per
 * line); a first line starting with `#` (the export header) is skipped. Only the first
 * document's `version` is read; an unsupported one fails with Flipt's `unsupported version: X`.
 */
export function decodeDocuments(text: string, options: DecodeOptions): DecodedStream {
  const raws = options.encoding === 'json' ? parseJsonStream(text) : parseYamlStream(text);
  const { readerOf, ...stream } = readDocuments(raws, options);
  return stream;
}

/**
 * Documents as plain data → the document model; and for each one, what reads more of it (a
 * streamed import reads a document's flags and segments later, a part at a time).
 */
export function readDocuments(raws: RawDocument[], options: DecodeOptions): DecodedStream & { readerOf: (document: number) => DocumentReader } {
  const maxVersion = options.maxVersion ?? '1.4';
  let version = knownVersion(maxVersion);
  const documents: Document[] = [];
  const warnings: ExtWarning[] = [];
  const readerOf = (document: number) => {
    const raw = raws[document - 1];
    return new DocumentReader({
      document,
      version,
      strict: options.strict ?? false,
      fallbackLine: raw.singleLine ? raw.line : undefined,
      startLine: raw.line,
    });
  };
  for (const [i, raw] of raws.entries()) {
    if (i === 0) version = versionOf(raw, maxVersion);
    const reader = readerOf(i + 1);
    documents.push(reader.read(raw.value));
    warnings.push(...reader.warnings);
  }
  return { version, documents, warnings, readerOf };
}

function versionOf(raw: RawDocument, maxVersion: string): Version {
  const value = raw.value;
  const field = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>).version : undefined;
  if (field === undefined || field === null || field === '') return knownVersion(maxVersion);
  const location = { document: 1, field: 'version', line: lineOf(value as object, 'version') ?? raw.line };
  if (typeof field === 'object') throw new ExtError(`unmarshalling document: expected a string, found ${Array.isArray(field) ? 'a list' : 'a map'}`, location);
  // Go's decoder gives a string field the scalar's text: `version: 1.10` reads as "1.10", not 1.1.
  const text = typeof field === 'string' ? field : (sourceOf(value as object, 'version') ?? String(field));
  let version: Version;
  try {
    version = parseTolerant(text);
  } catch (err) {
    throw new ExtError(`parsing document version: ${(err as Error).message}`, location);
  }
  if (!isSupported(version, maxVersion)) throw new ExtError(`unsupported version: ${text}`, location);
  return version;
}

/**
 * A stream of JSON values separated by whitespace (as Go's json.Decoder reads them): usually
 * one object, or one object per line. A first line beginning with `#` is skipped.
 */
export function parseJsonStream(input: string): RawDocument[] {
  let text = input;
  let lineOffset = 0;
  if (text.startsWith('#')) {
    const end = text.indexOf('\n');
    text = end === -1 ? '' : text.slice(end + 1);
    lineOffset = 1;
  }
  const out: RawDocument[] = [];
  let i = 0;
  let line = 1 + lineOffset;
  const n = text.length;
  while (i < n) {
    // Skip whitespace between values, counting lines.
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      continue;
    }
    const start = i;
    const startLine = line;
    // Unterminated: to the end (JSON.parse reports it); an empty scalar: one character.
    const end = Math.max(Math.min(valueEnd(text, i), text.length), i + 1);
    const slice = text.slice(start, end);
    if (nestsDeeperThan(slice, MAX_DOCUMENT_DEPTH)) {
      // Refused before parsing: what reads the value later recurses (a stack overflow, not an answer).
      throw new ExtError(`unmarshalling document: json: the document nests more than ${MAX_DOCUMENT_DEPTH} levels deep`, { document: out.length + 1, line: startLine });
    }
    let value: unknown;
    try {
      value = JSON.parse(slice);
    } catch (err) {
      const message = (err as Error).message;
      const given = /position (\d+)/.exec(message);
      const offset = given ? Number(given[1]) : jsonErrorOffset(slice);
      const { line: errorLine, column } = offset >= 0 ? positionOf(text, start + offset) : { line: startLine, column: undefined };
      throw new ExtError(
        `unmarshalling document: json: ${jsonReason(message)}`,
        { document: out.length + 1, line: errorLine + lineOffset },
        'invalid',
        excerpt(text, errorLine, column, lineOffset),
      );
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      const what = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
      if (value !== null) {
        throw new ExtError(`unmarshalling document: json: cannot unmarshal ${what} into a document`, { document: out.length + 1, line: startLine });
      }
    }
    const lines = countLines(slice, slice.length);
    line += lines;
    // In a one-line document (JSON lines) every field is on the document's line.
    out.push({ value, line: startLine, singleLine: lines === 0 });
    i = end;
  }
  return out;
}

/**
 * JSON.parse's message without where it was: the position (the caller says the line, with an
 * excerpt) and the source that V8 quotes (`Unexpected token ',', "{"a": tru, "b…" is not
 * valid JSON`), which would echo the input and differ with where parsing began.
 */
export function jsonReason(message: string): string {
  return message.replace(/ in JSON at position \d+.*$/s, '').replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '');
}

function countLines(text: string, upTo: number): number {
  let count = 0;
  for (let k = 0; k < upTo && k < text.length; k++) if (text.charCodeAt(k) === 10) count++;
  return count;
}
