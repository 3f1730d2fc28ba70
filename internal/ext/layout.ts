/**
 * Where the parts of a large YAML stream are, found without parsing it: each document's
 * top-level entries, and the items of its `flags` and `segments` lists, as ranges of the text.
 * A streamed import (stream-import.ts) parses those ranges a few at a time, so that what is held
 * is one part's values, not the whole stream's (100,000 flags of ten rules, parsed whole with
 * their positions, needed more than the default 4 GB heap).
 *
 * Only the shape that Flipt's and Pennon's exports write is laid out: block-style maps and lists
 * with space indentation. Anything this scanner is not sure of — an anchor or alias (which may
 * reach across items), a flow-style or indented document root, a directive, a tab in an
 * indentation, a line less indented than the list it would belong to, a key written twice —
 * gives `null`, and the caller parses the stream whole, as before.
 */

export interface TextRange {
  start: number;
  end: number;
  /** 1-based line of `start`. */
  line: number;
}

export interface TopLevelEntry extends TextRange {
  key: string;
  /** The `flags` or `segments` list whose items are laid out apart: the entry reads as null. */
  itemsApart?: boolean;
}

export interface DocumentLayout {
  /** 1-based position in the stream (empty documents are not counted, as in parseYamlStream). */
  document: number;
  /** The line of the document's first entry. */
  line: number;
  /** Top-level entries other than the two lists' items, in order (the lists' own `flags:` lines included). */
  entries: TopLevelEntry[];
  flags: TextRange[];
  segments: TextRange[];
  /** JSON only: the whole document is on one line (JSON lines), so every field is on `line`. */
  singleLine?: boolean;
}

const TOP_LEVEL_KEY = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]|$)/;
const LIST_KEYS = new Set(['flags', 'segments']);
/** An anchor or alias where a value starts (after `: `, `- `, `[`, `{` or `,`): any use of one falls back to the whole parse. */
const ANCHOR_OR_ALIAS = /(?:^|[:\-][ \t]|[[{,])[ \t]*[&*][^\s]/m;

interface Line {
  start: number;
  /** Where the line's text ends (before `\r\n` or `\n`). */
  end: number;
  /** Start of the next line. */
  next: number;
  number: number;
  indent: number;
  /** Blank, or only a comment. */
  empty: boolean;
}

function* linesOf(text: string): Generator<Line | null> {
  let start = 0;
  let number = 1;
  while (start < text.length) {
    let next = text.indexOf('\n', start);
    if (next === -1) next = text.length;
    else next++;
    let end = next;
    if (text.charCodeAt(end - 1) === 10) end--;
    if (text.charCodeAt(end - 1) === 13) end--;
    let indent = start;
    while (text.charCodeAt(indent) === 32) indent++;
    if (text.charCodeAt(indent) === 9 && indent < end) {
      yield null; // a tab in the indentation: not laid out here
      return;
    }
    const first = indent < end ? text.charCodeAt(indent) : -1;
    yield { start, end, next, number, indent: indent - start, empty: first === -1 || first === 35 || (first === 13 && indent + 1 === end) };
    start = next;
    number++;
  }
}

/** The layout of every document of a YAML stream, or null when it is not of the simple shape (see above). */
export function layoutYaml(text: string): DocumentLayout[] | null {
  if (ANCHOR_OR_ALIAS.test(text)) return null;
  const documents: DocumentLayout[] = [];
  let doc: DocumentLayout | null = null;
  let keys = new Set<string>();
  /** The list whose items are being read, and their indentation (-1 before the first item). */
  let list: TextRange[] | null = null;
  let itemIndent = -1;
  let open: TextRange | null = null;

  const close = (at: number) => {
    if (open) open.end = at;
    open = null;
  };
  const endDocument = (at: number) => {
    close(at);
    if (doc && doc.entries.length > 0) documents.push(doc);
    doc = null;
    list = null;
  };

  for (const line of linesOf(text)) {
    if (line === null) return null;
    if (line.empty) continue;
    const head = text.slice(line.start, Math.min(line.end, line.start + 4));
    if (line.indent === 0 && (head.startsWith('%') || head.startsWith('...'))) return null;
    if (line.indent === 0 && /^---(?:[ \t]|$)/.test(head)) {
      // Content after the marker (`--- {…}`) is a document of another shape.
      if (text.slice(line.start + 3, line.end).trim() !== '' && !text.slice(line.start + 3, line.end).trim().startsWith('#')) return null;
      endDocument(line.start);
      continue;
    }
    if (line.indent === 0 && text.charCodeAt(line.start) !== 45 /* - */) {
      const key = TOP_LEVEL_KEY.exec(text.slice(line.start, line.end))?.[1];
      if (key === undefined) return null;
      if (!doc) {
        doc = { document: documents.length + 1, line: line.number, entries: [], flags: [], segments: [] };
        keys = new Set();
      }
      if (keys.has(key)) return null;
      keys.add(key);
      close(line.start);
      const rest = text.slice(line.start, line.end).replace(TOP_LEVEL_KEY, '').trim();
      const entry: TopLevelEntry = { key, start: line.start, end: line.next, line: line.number };
      doc.entries.push(entry);
      if (LIST_KEYS.has(key) && (rest === '' || rest.startsWith('#'))) {
        // The entry is just `flags:`; what follows is its items.
        entry.itemsApart = true;
        list = key === 'flags' ? doc.flags : doc.segments;
        itemIndent = -1;
      } else {
        list = null;
        open = entry;
      }
      continue;
    }
    if (!doc) return null; // the root is not a block map
    if (list) {
      const isItem = text.charCodeAt(line.start + line.indent) === 45 && /^-(?:[ \t]|$)/.test(text.slice(line.start + line.indent, line.start + line.indent + 2));
      if (itemIndent === -1) {
        if (!isItem) return null; // a map, or a scalar, where a list is due
        itemIndent = line.indent;
      }
      if (line.indent === itemIndent && isItem) {
        close(line.start);
        open = { start: line.start, end: line.next, line: line.number };
        list.push(open);
        continue;
      }
      if (line.indent > itemIndent && open) continue;
      return null;
    }
    if (open && line.indent > 0) continue;
    return null;
  }
  endDocument(text.length);
  return documents;
}
