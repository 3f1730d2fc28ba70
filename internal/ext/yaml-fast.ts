import { setPositions, type Positions } from './positions';
import { define, type RawDocument } from './raw';

/**
 * A fast reader for the plain block YAML that Flipt and Pennon write (and most people do):
 * block maps and sequences (sequences may sit at their key's indentation, as yaml.v2 writes
 * them), one-line plain, single- and double-quoted scalars, comments, `---` between documents,
 * and empty `[]` / `{}`. Scalars resolve as the YAML 1.2 core schema does. It returns null as
 * soon as it meets anything else (flow collections with content, anchors, tags, block or
 * multi-line scalars, tabs, duplicate keys, …) and the caller uses the full parser, so it
 * only ever has to agree with it on this subset (test/unit/ext-yaml.test.ts checks that).
 * Why: the full parser reads about half a megabyte a second, and large imports are YAML.
 */

class Unsupported extends Error {}
const bail = (): never => {
  throw new Unsupported();
};

interface Line {
  /** 1-based line number. */
  n: number;
  indent: number;
  /** The line without its indentation. */
  text: string;
}

const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
/** What cannot start a plain scalar: an indicator, or `-`, `?`, `:` followed by a space (or nothing). */
const INDICATOR = /^(?:[,[\]{}#&*!|>'"%@`]|[-?:](?: |$))/;

/** The core schema's reading of a plain scalar. */
function resolve(text: string): unknown {
  if (NULL.test(text)) return null;
  if (BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
  if (OCT.test(text)) return parseInt(text.substring(2), 8);
  if (INT.test(text)) return parseInt(text, 10);
  if (HEX.test(text)) return parseInt(text.substring(2), 16);
  if (NAN.test(text)) return text.slice(-3).toLowerCase() === 'nan' ? NaN : text[0] === '-' ? -Infinity : Infinity;
  if (EXP.test(text) || FLOAT.test(text)) return parseFloat(text);
  return text;
}

const ESCAPES: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ',
  '"': '"', '/': '/', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029',
};
const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

/** A quoted scalar at the start of `text`: its value and the rest of the line. */
function quoted(text: string): { value: string; rest: string } {
  const quote = text[0];
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c !== "'") value += c;
      else if (text[i + 1] === "'") value += text[++i];
      else return { value, rest: text.slice(i + 1) };
    } else if (c === '"') {
      return { value, rest: text.slice(i + 1) };
    } else if (c === '\\') {
      const e = text[++i];
      if (e in ESCAPES) value += ESCAPES[e];
      else if (e in HEX_LENGTH) {
        const digits = text.substr(i + 1, HEX_LENGTH[e]);
        if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== HEX_LENGTH[e]) bail();
        value += String.fromCodePoint(parseInt(digits, 16));
        i += digits.length;
      } else bail();
    } else value += c;
  }
  return bail(); // continues on the next line
}

/** Nothing but an optional comment may follow a value. */
function endOfValue(rest: string): void {
  if (rest !== '' && !/^ +(#.*)?$/.test(rest)) bail();
}

class Reader {
  private i = 0;

  constructor(private readonly lines: Line[]) {}

  document(): { value: unknown; line: number } {
    const first = this.lines[0];
    const value = this.block(first.indent);
    if (this.i < this.lines.length) bail();
    return { value, line: first.n };
  }

  private isItem(text: string): boolean {
    return text === '-' || text.startsWith('- ');
  }

  private block(indent: number): unknown {
    const line = this.lines[this.i];
    return this.isItem(line.text) ? this.sequence(indent) : this.map(indent);
  }

  /** A value on its own line(s) after `key:` or `-`: nested deeper, or (for a key) a sequence at the same indentation. */
  private nested(indent: number, allowSameIndentSequence: boolean): { value: unknown; line?: number } {
    const next = this.lines[this.i];
    if (next && next.indent > indent) return { value: this.block(next.indent), line: next.n };
    if (next && allowSameIndentSequence && next.indent === indent && this.isItem(next.text)) return { value: this.sequence(indent), line: next.n };
    return { value: null };
  }

  /** A scalar that ends its line; a deeper line after it would continue it (unsupported). */
  private scalar(text: string, indent: number): { value: unknown; source?: string } {
    let result: { value: unknown; source?: string };
    if (text[0] === '"' || text[0] === "'") {
      const { value, rest } = quoted(text);
      endOfValue(rest);
      result = { value };
    } else if (text[0] === '[' || text[0] === '{') {
      const close = text[0] === '[' ? ']' : '}';
      if (text[1] !== close) bail();
      endOfValue(text.slice(2));
      result = { value: close === ']' ? [] : {} };
      setPositions(result.value as object, { line: this.lines[this.i - 1].n, lines: new Map() });
    } else {
      if (INDICATOR.test(text)) bail();
      const hash = text.indexOf(' #');
      const plain = (hash === -1 ? text : text.slice(0, hash)).replace(/ +$/, '');
      if (plain.includes(': ') || plain.endsWith(':')) bail();
      const value = resolve(plain);
      result = typeof value === 'number' || typeof value === 'boolean' ? { value, source: plain } : { value };
    }
    const next = this.lines[this.i];
    if (next && next.indent > indent) bail();
    return result;
  }

  private sequence(indent: number): unknown[] {
    const list: unknown[] = [];
    const p: Positions = { line: this.lines[this.i].n, lines: new Map() };
    while (this.i < this.lines.length) {
      const line = this.lines[this.i];
      if (line.indent !== indent || !this.isItem(line.text)) break;
      const rest = line.text.slice(1).replace(/^ +/, '');
      const column = indent + (line.text.length - rest.length);
      let value: unknown;
      let at = line.n;
      if (rest === '' || rest.startsWith('#')) {
        this.i++;
        const nested = this.nested(indent, false);
        if (nested.line === undefined) bail(); // a null item
        value = nested.value;
        at = nested.line!;
      } else if (this.isItem(rest)) {
        return bail();
      } else if (this.keyOf(rest) !== null) {
        // `- key: value`: a map whose first entry shares the item's line.
        this.lines[this.i] = { n: line.n, indent: column, text: rest };
        value = this.map(column);
      } else {
        this.i++;
        const scalar = this.scalar(rest, indent);
        value = scalar.value;
        if (scalar.source !== undefined) (p.sources ??= new Map()).set(list.length, scalar.source);
      }
      p.lines!.set(list.length, at);
      list.push(value);
    }
    setPositions(list, p);
    return list;
  }

  /** The key at the start of a map entry and the text after its colon, or null when `text` is no entry. */
  private keyOf(text: string): { key: string; rest: string } | null {
    if (text[0] === '"' || text[0] === "'") {
      const { value, rest } = quoted(text);
      if (rest[0] !== ':' || (rest.length > 1 && rest[1] !== ' ')) return null;
      return { key: value, rest: rest.slice(1).replace(/^ +/, '') };
    }
    const colon = text.search(/:( |$)/);
    if (colon <= 0) return null;
    const raw = text.slice(0, colon);
    if (INDICATOR.test(raw) || raw.includes(' #') || raw.endsWith(' ') || raw === '<<') bail();
    const resolved = resolve(raw);
    return { key: resolved === null ? '' : String(resolved), rest: text.slice(colon + 1).replace(/^ +/, '') };
  }

  private map(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    const p: Positions = { line: this.lines[this.i].n, lines: new Map() };
    while (this.i < this.lines.length) {
      const line = this.lines[this.i];
      if (line.indent !== indent || this.isItem(line.text)) break;
      const entry = this.keyOf(line.text) ?? bail();
      if (Object.hasOwn(map, entry.key)) bail();
      this.i++;
      let value: unknown;
      if (entry.rest === '' || entry.rest.startsWith('#')) {
        value = this.nested(indent, true).value;
      } else {
        const scalar = this.scalar(entry.rest, indent);
        value = scalar.value;
        if (scalar.source !== undefined) (p.sources ??= new Map()).set(entry.key, scalar.source);
      }
      define(map, entry.key, value);
      p.lines!.set(entry.key, line.n);
    }
    const next = this.lines[this.i];
    if (next && next.indent > indent) bail();
    setPositions(map, p);
    return map;
  }
}

/** The documents of `text`, or null when it uses YAML this reader leaves to the full parser. */
export function parseSimpleYaml(text: string): RawDocument[] | null {
  if (text.includes('\t') || text.startsWith('\uFEFF')) return null;
  const source = text.includes('\r') ? text.replace(/\r\n/g, '\n') : text;
  if (source.includes('\r')) return null;
  const docs: Line[][] = [[]];
  const rows = source.split('\n');
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k];
    if (row.startsWith('---')) {
      if (!/^---( +#.*| *)$/.test(row)) return null;
      docs.push([]);
      continue;
    }
    if (row.startsWith('...') || row.startsWith('%')) return null;
    // Only spaces indent (and trail): other white space, NBSP say, is content in YAML.
    const body = row.replace(/^ +/, '');
    if (body === '' || body.startsWith('#')) continue;
    docs[docs.length - 1].push({ n: k + 1, indent: row.length - body.length, text: body.replace(/ +$/, '') });
  }
  try {
    return docs.filter((lines) => lines.length > 0).map((lines) => new Reader(lines).document());
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
}
