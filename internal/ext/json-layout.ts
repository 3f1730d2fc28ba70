import { stringEnd, valueEnd } from './json-scan';
import type { DocumentLayout, TextRange, TopLevelEntry } from './layout';

/**
 * layout.ts for JSON: where each document's top-level members and the items of its `flags` and
 * `segments` arrays are, found by matching brackets and strings, not by parsing. A document
 * that is not an object, a key written twice, or anything out of place in that structure gives
 * null: the stream is then parsed whole, which names the mistake. (A mistake inside an item is
 * found when the item is parsed.)
 */

const FLAGS_OR_SEGMENTS = new Set(['flags', 'segments']);

export function layoutJson(input: string): DocumentLayout[] | null {
  const text = input;
  const documents: DocumentLayout[] = [];
  // parseJsonStream skips a first line starting with `#` (the export header).
  let i = text.startsWith('#') ? lineEnd(text, 0) : 0;
  const lines = lineCounter(text);
  for (;;) {
    i = skipSpace(text, i);
    if (i >= text.length) return documents;
    const doc = layoutDocument(text, i, documents.length + 1, lines);
    if (!doc) return null;
    const newline = text.indexOf('\n', i);
    doc.layout.singleLine = newline === -1 || newline >= doc.end;
    documents.push(doc.layout);
    i = doc.end;
  }
}

/** 1-based line of an offset, for offsets asked in increasing order. */
function lineCounter(text: string): (offset: number) => number {
  let at = 0;
  let line = 1;
  return (offset) => {
    for (let k = text.indexOf('\n', at); k !== -1 && k < offset; k = text.indexOf('\n', k + 1)) line++;
    at = Math.max(at, offset);
    return line;
  };
}

function layoutDocument(text: string, start: number, document: number, lineOf: (offset: number) => number): { layout: DocumentLayout; end: number } | null {
  if (text.charCodeAt(start) !== 123 /* { */) return null;
  const layout: DocumentLayout = { document, line: lineOf(start), entries: [], flags: [], segments: [] };
  const keys = new Set<string>();
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === 125 /* } */) return { layout, end: i + 1 };
  for (;;) {
    if (text.charCodeAt(i) !== 34 /* " */) return null;
    const keyEnd = stringEnd(text, i);
    let key: string;
    try {
      key = JSON.parse(text.slice(i, keyEnd)) as string;
    } catch {
      return null;
    }
    if (keys.has(key)) return null;
    keys.add(key);
    const entry: TopLevelEntry = { key, start: i, end: 0, line: lineOf(i) };
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 58 /* : */) return null;
    i = skipSpace(text, i + 1);
    if (FLAGS_OR_SEGMENTS.has(key) && text.charCodeAt(i) === 91 /* [ */) {
      // The member itself is read as `"flags": null`; its items are the list's parts.
      entry.itemsApart = true;
      const items = key === 'flags' ? layout.flags : layout.segments;
      const end = layoutItems(text, i, items, lineOf);
      if (end === null) return null;
      i = entry.end = end;
    } else {
      i = valueEnd(text, i);
      if (i > text.length) return null;
      entry.end = i;
    }
    layout.entries.push(entry);
    i = skipSpace(text, i);
    const c = text.charCodeAt(i);
    if (c === 125 /* } */) return { layout, end: i + 1 };
    if (c !== 44 /* , */) return null;
    i = skipSpace(text, i + 1);
  }
}

/** The items of the array at `start`, into `items`; the offset after the array, or null. */
function layoutItems(text: string, start: number, items: TextRange[], lineOf: (offset: number) => number): number | null {
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === 93 /* ] */) return i + 1;
  for (;;) {
    const end = valueEnd(text, i);
    if (end > text.length || end <= i) return null;
    items.push({ start: i, end, line: lineOf(i) });
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 93) return i + 1;
    if (c !== 44) return null;
    i = skipSpace(text, i + 1);
  }
}

function skipSpace(text: string, from: number): number {
  let i = from;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) i++;
    else return i;
  }
}

function lineEnd(text: string, from: number): number {
  const k = text.indexOf('\n', from);
  return k === -1 ? text.length : k + 1;
}
