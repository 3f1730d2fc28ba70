import { PennonError } from '../core';
import { nestsDeeperThan } from '../core/json-depth';
import { jsonReason, readDocuments, type DecodeOptions, type DecodedStream } from './decode';
import { MAX_DOCUMENT_DEPTH, namespaceKeyOf, type Document } from './document';
import { ExtError, type ExtWarning } from './errors';
import { excerpt, jsonErrorOffset, positionOf } from './excerpt';
import { layoutJson } from './json-layout';
import { layoutYaml, type DocumentLayout, type TextRange } from './layout';
import { positionsOf, setPositions, type Positions } from './positions';
import { define, type RawDocument } from './raw';
import { parseYamlStream } from './yaml';

/**
 * A YAML or JSON stream decoded a part at a time: first every document without its `flags` and
 * `segments` items (its version, namespace and any other key, read and checked as
 * decodeDocuments reads them), then, when asked, each document's segments and flags a few
 * hundred at a time. What is held at once is one part's values and positions, not the whole
 * stream's: parsed whole, 100,000 flags of ten rules needed more than the default 4 GB heap.
 */

/**
 * From this size on, an import reads a stream in parts (smaller ones are read whole, so that a
 * document with several mistakes reports the first one in Flipt's order).
 */
export const IMPORT_IN_PARTS_FROM = 4 * 1024 * 1024;

/** Items parsed and read together: about a megabyte of YAML of the scale shape. */
export const ITEMS_PER_PART = 500;

export interface DecodedPart {
  /** 1-based position of the document in the stream. */
  document: number;
  /** The document with none of its items, or with some of its segments, or with some of its flags. */
  doc: Document;
}

export interface PartedStream extends Pick<DecodedStream, 'version' | 'warnings'> {
  /** Each document without its items: what a streamed import reads before it writes (namespaces, version). */
  heads: Document[];
  /** How many flags each document lists. */
  flagCounts: number[];
  /**
   * Per document: the head, then its segments, then its flags, in parts. Warnings found on the
   * way are added to `warnings` (and given to `onWarning`).
   */
  parts(onWarning?: (warning: ExtWarning) => void): Generator<DecodedPart>;
}

/**
 * The stream in parts, or null when it is not of the shape layout.ts (YAML) or json-layout.ts
 * lays out (then decodeDocuments reads it whole). A document's parse errors say its line, as
 * the whole parse does.
 */
export function decodeInParts(text: string, options: DecodeOptions, itemsPerPart = ITEMS_PER_PART): PartedStream | null {
  const json = options.encoding === 'json';
  const layouts = json ? layoutJson(text) : layoutYaml(text);
  if (!layouts || layouts.length === 0) return null;
  const parseItems = json ? parseJsonItems : parseYamlItems;
  const raws: RawDocument[] = [];
  for (const layout of layouts) {
    const raw = json ? jsonHeadOf(text, layout) : headOf(text, layout);
    if (!raw) return null;
    raws.push(raw);
  }
  const { version, documents: heads, warnings, readerOf } = readDocuments(raws, options);
  return {
    version,
    heads,
    warnings,
    flagCounts: layouts.map((l) => l.flags.length),
    *parts(onWarning) {
      for (const [i, layout] of layouts.entries()) {
        const document = i + 1;
        const head = heads[i];
        yield { document, doc: head };
        for (const kind of ['segments', 'flags'] as const) {
          const ranges = layout[kind];
          for (let first = 0; first < ranges.length; first += itemsPerPart) {
            const items = parseItems(text, ranges.slice(first, first + itemsPerPart), layout);
            const reader = readerOf(document);
            const read = kind === 'flags' ? reader.readItems('flags', items, first, namespaceKeyOf(head)) : reader.readItems('segments', items, first, namespaceKeyOf(head));
            for (const w of reader.warnings) {
              warnings.push(w);
              onWarning?.(w);
            }
            const doc: Document = { ...head, [kind]: read };
            const positions = positionsOf(head);
            if (positions) setPositions(doc, positions);
            yield { document, doc };
          }
        }
      }
    },
  };
}

/** A document's top-level entries, each parsed alone, as the one map the whole parse would give (its lists' items left out). */
function headOf(text: string, layout: DocumentLayout): RawDocument | null {
  const value: Record<string, unknown> = {};
  const merged: Positions = { line: layout.line, lines: new Map() };
  for (const entry of layout.entries) {
    if (entry.itemsApart) {
      define(value, entry.key, null); // read in parts
      merged.lines!.set(entry.key, entry.line);
      continue;
    }
    const raws = parseInDocument(text, entry, layout.document);
    const parsed = raws[0]?.value;
    if (raws.length !== 1 || parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    const keys = Object.keys(parsed);
    if (keys.length !== 1 || keys[0] !== entry.key) return null;
    define(value, entry.key, (parsed as Record<string, unknown>)[entry.key]);
    const p = positionsOf(parsed);
    const line = p?.lines?.get(entry.key);
    if (line !== undefined) merged.lines!.set(entry.key, line);
    const source = p?.sources?.get(entry.key);
    if (source !== undefined) (merged.sources ??= new Map()).set(entry.key, source);
  }
  setPositions(value, merged);
  return { value, line: layout.line };
}

/** Consecutive items of one list, as the list of their values (null items included, as the whole parse keeps them). */
function parseYamlItems(text: string, ranges: TextRange[], layout: DocumentLayout): unknown[] {
  const range = { start: ranges[0].start, end: ranges[ranges.length - 1].end, line: ranges[0].line };
  const raws = parseInDocument(text, range, layout.document);
  return expectItems(raws[0]?.value, raws.length === 1, ranges, layout);
}

function expectItems(items: unknown, one: boolean, ranges: TextRange[], layout: DocumentLayout): unknown[] {
  if (!one || !Array.isArray(items) || items.length !== ranges.length) {
    // The layout promised a list of exactly these items: this is a bug, not the user's document.
    throw new PennonError('internal', `reading document ${layout.document} in parts went wrong at line ${ranges[0].line}; please report it`);
  }
  return items;
}

/** A JSON document's members other than its lists' items, as the whole parse reads them (no positions: JSON has none). */
function jsonHeadOf(text: string, layout: DocumentLayout): RawDocument | null {
  const value: Record<string, unknown> = {};
  for (const entry of layout.entries) {
    if (entry.itemsApart) {
      define(value, entry.key, null); // read in parts
      continue;
    }
    const member = `{${text.slice(entry.start, entry.end)}}`;
    tooDeep(member, MAX_DOCUMENT_DEPTH, layout);
    let parsed: unknown;
    try {
      parsed = JSON.parse(member);
    } catch {
      return null; // the whole parse says what is wrong
    }
    define(value, entry.key, (parsed as Record<string, unknown>)[entry.key]);
  }
  return { value, line: layout.line, singleLine: layout.singleLine };
}

/** JSON items, parsed as one array; a mistake is said as the whole parse says it (message, line, excerpt). */
function parseJsonItems(text: string, ranges: TextRange[], layout: DocumentLayout): unknown[] {
  const start = ranges[0].start;
  const list = `[${text.slice(start, ranges[ranges.length - 1].end)}]`;
  // In the document the items are two levels down (its object, the list); here one.
  tooDeep(list, MAX_DOCUMENT_DEPTH - 1, layout);
  try {
    return expectItems(JSON.parse(list), true, ranges, layout);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    const given = /position (\d+)/.exec(err.message);
    const offset = start + (given ? Number(given[1]) : jsonErrorOffset(list)) - 1;
    const { line, column } = positionOf(text, offset);
    throw new ExtError(`unmarshalling document: json: ${jsonReason(err.message)}`, { document: layout.document, line }, 'invalid', excerpt(text, line, column));
  }
}

function tooDeep(text: string, limit: number, layout: DocumentLayout): void {
  if (nestsDeeperThan(text, limit)) {
    throw new ExtError(`unmarshalling document: json: the document nests more than ${MAX_DOCUMENT_DEPTH} levels deep`, { document: layout.document, line: layout.line });
  }
}

/** Parses part of the text, saying the stream's line numbers and the document's position in errors. */
function parseInDocument(text: string, range: TextRange, document: number): RawDocument[] {
  try {
    return parseYamlStream(text.slice(range.start, range.end), range.line - 1);
  } catch (err) {
    if (err instanceof ExtError && err.location) throw new ExtError(err.reason, { ...err.location, document }, err.kind, err.excerpt);
    throw err;
  }
}
