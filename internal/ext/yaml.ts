import * as jsYaml from 'js-yaml';
import { CORE_SCHEMA, loadAll, YAMLException, type State, type Type } from 'js-yaml';
import { MAX_DOCUMENT_DEPTH } from './document';
import { ExtError } from './errors';
import { excerpt } from './excerpt';
import { setPositions, type Positions } from './positions';
import { define, type RawDocument } from './raw';

/**
 * The one YAML reader of import documents: js-yaml, with the positions that error messages
 * and warnings name (each map's and list's line, each key's and item's line, the source text
 * of scalars that are not strings) taken from its parse events. Measured against the other
 * readers (docs/DECISIONS.md, "One YAML reader"): the fastest of them, and the only one
 * that reads any YAML; test/unit/ext-yaml.test.ts holds its values and positions to the
 * `yaml` library's.
 */

/** As deep as a JSON document may nest; aliases may also point at their own ancestors, which Go's decoder refuses too. */
const MAX_DEPTH = MAX_DOCUMENT_DEPTH;

/** The YAML 1.2 core schema plus merge keys, as Go's yaml.v3 reads (dates stay strings). */
// `types` exists at run time but is missing from @types/js-yaml.
const SCHEMA = CORE_SCHEMA.extend({ implicit: [(jsYaml as unknown as { types: { merge: Type } }).types.merge] });

/**
 * One node as js-yaml composes it (every node, keys included, is opened and closed once;
 * a node may wrap another with the same value). Children are dropped once their parent has
 * recorded their positions, so only the open path's nodes are held.
 */
interface ParsedNode {
  /** Offset and 1-based line of the node's first character after white space and comments. */
  start: number;
  line: number;
  end: number;
  result: unknown;
  /** A mapping key: what follows the node on its line is `:`. */
  key: boolean;
  children: ParsedNode[] | null;
}

const SPACE = 32;
const TAB = 9;
const LF = 10;
const CR = 13;
const HASH = 35;
const COLON = 58;
const AMPERSAND = 38;
const LESS_THAN = 60;
const EXCLAMATION = 33;

/**
 * Where a node's content starts: js-yaml opens a value before the space (and comments) after
 * its key, and before its anchor or tag, which the `yaml` library does not count as content.
 */
function contentStart(input: string, position: number, line: number): { start: number; line: number } {
  let i = position;
  let n = line;
  for (;;) {
    const c = input.charCodeAt(i);
    if (c === SPACE || c === TAB) i++;
    else if (c === LF) {
      i++;
      n++;
    } else if (c === CR) {
      i++;
      if (input.charCodeAt(i) === LF) i++;
      n++;
    } else if (c === HASH) {
      while (i < input.length && input.charCodeAt(i) !== LF && input.charCodeAt(i) !== CR) i++;
    } else if (c === AMPERSAND || c === EXCLAMATION) {
      while (i < input.length && !isSpace(input.charCodeAt(i))) i++;
    } else return { start: i, line: n };
  }
}

const isSpace = (c: number) => c === SPACE || c === TAB || c === LF || c === CR;

function followedByColon(input: string, position: number): boolean {
  let i = position;
  while (input.charCodeAt(i) === SPACE || input.charCodeAt(i) === TAB) i++;
  return input.charCodeAt(i) === COLON;
}

/** A key as js-yaml stores it (`String(key)`); a null key is '' (the `yaml` library's and Go's reading). */
const keyText = (key: unknown): string => (key === null ? 'null' : typeof key === 'object' ? '[object Object]' : String(key));

/** The text of a number or boolean, for string fields (`value: 2.50` reads as "2.50"); none through an alias. */
function sourceText(input: string, node: ParsedNode): string | undefined {
  const text = input.slice(node.start, node.end).trimEnd();
  return text.startsWith('*') ? undefined : text;
}

/**
 * A map's key lines and scalar sources. Its nodes come as key, value, key, value…; a key
 * with no value on its line (`? a`, or `{a, b: 1}`) is known as one by coming where a key is due.
 */
function recordMap(input: string, map: Record<string, unknown>, line: number, children: ParsedNode[]): void {
  const p: Positions = { line, lines: new Map() };
  let key: string | undefined;
  let nullKey = false;
  for (const child of children) {
    if (child.key || key === undefined) {
      key = keyText(child.result);
      if (child.result === null) nullKey = true;
      // A merge key (plain `<<`) is no entry of its own: the merged entries keep the map's line.
      if (key === '<<' && input.charCodeAt(child.start) === LESS_THAN) continue;
      if (!p.lines!.has(key)) p.lines!.set(key, child.line);
      continue;
    }
    if (typeof child.result === 'number' || typeof child.result === 'boolean') {
      const source = sourceText(input, child);
      if (source !== undefined) (p.sources ??= new Map()).set(key, source);
    }
    key = undefined;
  }
  if (nullKey && Object.hasOwn(map, 'null')) renameNullKey(map, p);
  setPositions(map, p);
}

/** js-yaml names a null key "null"; Go's decoder and the `yaml` library name it ''. Key order is kept. */
function renameNullKey(map: Record<string, unknown>, p: Positions): void {
  const rename = (k: string | number) => (k === 'null' ? '' : k);
  const entries = Object.entries(map);
  for (const [k] of entries) delete map[k];
  for (const [k, value] of entries) define(map, rename(k) as string, value);
  p.lines = new Map([...p.lines!].map(([k, line]) => [rename(k), line]));
  if (p.sources) p.sources = new Map([...p.sources].map(([k, source]) => [rename(k), source]));
}

/**
 * A list's item lines and scalar sources. An item written as a bare `-` (null) has no node;
 * a single-pair map in a flow list (`[a: b]`) has its key's and value's nodes instead of one.
 */
function recordList(input: string, list: unknown[], line: number, items: ParsedNode[]): void {
  const p: Positions = { line, lines: new Map() };
  let j = 0;
  for (let i = 0; i < list.length && j < items.length; i++) {
    const item = items[j];
    if (item.key) {
      const pair = list[i];
      if (pair !== null && typeof pair === 'object') setPositions(pair, { line: item.line, lines: new Map([[keyText(item.result), item.line]]) });
      p.lines!.set(i, item.line);
      j += j + 1 < items.length && !items[j + 1].key ? 2 : 1;
      continue;
    }
    if (!Object.is(item.result, list[i])) continue;
    j++;
    p.lines!.set(i, item.line);
    if (typeof item.result === 'number' || typeof item.result === 'boolean') {
      const source = sourceText(input, item);
      if (source !== undefined) (p.sources ??= new Map()).set(i, source);
    }
  }
  setPositions(list, p);
}

/**
 * Aliases can make a small file expand enormously ("billion laughs"). Without aliases a value
 * takes at least a character of source, so more values than characters means amplification;
 * Go's yaml.v3 refuses such documents too ("excessive aliasing").
 */
function expansionBudget(text: string): { spend(document: number): void } {
  let left = text.length + 10_000;
  return {
    spend(document) {
      if (--left < 0) throw new ExtError('unmarshalling document: yaml: document contains excessive aliasing', { document });
    },
  };
}

/** js-yaml shares one object between an anchor and its aliases, so a cycle is a real cycle. */
function refuseCycles(value: unknown, document: number, budget: ReturnType<typeof expansionBudget>, depth = 0): void {
  budget.spend(document);
  if (value === null || typeof value !== 'object') return;
  if (depth > MAX_DEPTH) throw new ExtError('unmarshalling document: yaml: document nests too deeply (alias cycle?)', { document });
  for (const child of Array.isArray(value) ? value : Object.values(value)) refuseCycles(child, document, budget, depth + 1);
}

/**
 * A YAML stream (`---`-separated documents) as plain data with positions. Empty documents
 * (a trailing `---`) are skipped, as Go's decoder skips them. `lineOffset`: lines before `text`
 * in the file it was cut from (a streamed import parses a file a part at a time).
 */
export function parseYamlStream(text: string, lineOffset = 0): RawDocument[] {
  const open: ParsedNode[] = [];
  const roots: ParsedNode[] = [];
  const listener = (event: 'open' | 'close', state: State): void => {
    if (event === 'open') {
      const at = contentStart(state.input, state.position, state.line + 1 + lineOffset);
      open.push({ start: at.start, line: at.line, end: at.start, result: undefined, key: false, children: null });
      return;
    }
    const node = open.pop()!;
    node.end = state.position;
    node.result = state.result;
    node.key = followedByColon(state.input, state.position);
    // A node that only wraps another with the same value (js-yaml tries a key, finds none and keeps it) was recorded inside.
    const children = node.children ?? [];
    const wrapper = children.length === 1 && children[0].result === state.result;
    if (wrapper) {
      // Recorded already, as its one child.
    } else if (state.kind === 'mapping' && state.result !== null && typeof state.result === 'object' && !Array.isArray(state.result)) {
      recordMap(state.input, state.result as Record<string, unknown>, node.line, children);
    } else if (state.kind === 'sequence' && Array.isArray(state.result)) {
      recordList(state.input, state.result, node.line, children);
    }
    node.children = null;
    // Nothing read (a key looked for where a map ends, an empty value): no node of the map or list.
    if (node.end <= node.start && state.result === null && open.length > 0) return;
    const siblings = open.length > 0 ? (open[open.length - 1].children ??= []) : roots;
    // js-yaml re-reads a key that carries an anchor or a tag: the first reading's nodes are stale.
    while (siblings.length > 0 && siblings[siblings.length - 1].start >= node.start && siblings[siblings.length - 1] !== node) siblings.pop();
    siblings.push(node);
  };
  let values: unknown[];
  try {
    values = loadAll(text, undefined, { schema: SCHEMA, listener });
  } catch (err) {
    if (err instanceof YAMLException) {
      const mark = err.mark;
      const at = mark ? excerpt(text, mark.line + 1, mark.column + 1, lineOffset) : '';
      // The document being read: its root is still open, or (past its end) the last one closed.
      const document = Math.max(1, roots.length + (open.length > 0 ? 1 : 0));
      throw new ExtError(`unmarshalling document: yaml: ${err.reason}`, { document, line: mark ? mark.line + 1 + lineOffset : undefined }, 'invalid', at);
    }
    throw err;
  }
  const budget = expansionBudget(text);
  const out: RawDocument[] = [];
  values.forEach((value, i) => {
    if (value === null || value === undefined) return;
    refuseCycles(value, i + 1, budget);
    out.push({ value, line: roots[i]?.line ?? 1 + lineOffset });
  });
  return out;
}
