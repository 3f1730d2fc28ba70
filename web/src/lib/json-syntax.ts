/**
 * Where JSON text goes wrong, in the dashboard's words: "line 2, column 12: expected a property
 * name in double quotes, found }". The browser's own JSON.parse message differs between browsers
 * and versions and speaks of tokens, so the editors that check JSON (attachments, metadata, the
 * console's context) ask this instead once JSON.parse has refused the text. It reads JSON as
 * RFC 8259 writes it, the grammar JSON.parse accepts; it only looks for the first mistake.
 */
export function jsonSyntaxError(text: string): string | null {
  try {
    new Reader(text).document();
    return null;
  } catch (err) {
    if (err instanceof Mistake) return err.message;
    throw err;
  }
}

/** The editors' message for text JSON.parse refused: "Not valid JSON at line 2, column 3: …". */
export function notJson(text: string): string {
  const where = jsonSyntaxError(text);
  return where ? `Not valid JSON at ${where}.` : 'Not valid JSON.';
}

class Mistake extends Error {}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const SINGLE_QUOTES = 'strings and property names take double quotes (") in JSON, not single quotes';
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

class Reader {
  private at = 0;
  constructor(private readonly text: string) {}

  document(): void {
    this.blank();
    if (this.at >= this.text.length) this.fail('the text is empty: expected a JSON value', this.at, false);
    this.value();
    this.blank();
    if (this.at < this.text.length) this.fail('unexpected text after the JSON value');
  }

  private value(): void {
    const c = this.text[this.at];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) if (this.text.startsWith(word, this.at)) return void (this.at += word.length);
    if (c === "'") this.fail(SINGLE_QUOTES);
    this.fail('expected a value (a string, number, object, array, true, false or null)');
  }

  private object(): void {
    this.at++;
    this.blank();
    if (this.text[this.at] === '}') return void this.at++;
    for (;;) {
      if (this.text[this.at] === '}') this.fail('a comma before } is not allowed in JSON', this.at, false);
      if (this.text[this.at] === "'") this.fail(SINGLE_QUOTES);
      if (this.text[this.at] !== '"') this.fail('expected a property name in double quotes');
      this.string();
      this.blank();
      if (this.text[this.at] !== ':') this.fail('expected : after the property name');
      this.at++;
      this.blank();
      this.value();
      this.blank();
      const c = this.text[this.at];
      if (c === '}') return void this.at++;
      if (c !== ',') this.fail('expected , or } after the property value');
      this.at++;
      this.blank();
    }
  }

  private array(): void {
    this.at++;
    this.blank();
    if (this.text[this.at] === ']') return void this.at++;
    for (;;) {
      if (this.text[this.at] === ']') this.fail('a comma before ] is not allowed in JSON', this.at, false);
      this.value();
      this.blank();
      const c = this.text[this.at];
      if (c === ']') return void this.at++;
      if (c !== ',') this.fail('expected , or ] after the list item');
      this.at++;
      this.blank();
    }
  }

  private string(): void {
    const start = this.at++;
    for (;;) {
      if (this.at >= this.text.length) this.fail('this string is never closed (no ending ")', start, false);
      const c = this.text[this.at];
      if (c === '"') return void this.at++;
      if (c < ' ') this.fail(c === '\n' ? 'a line break inside a string must be written \\n' : `${shown(c)} inside a string must be escaped`, this.at, false);
      if (c === '\\') {
        const next = this.text[this.at + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.at + 2, this.at + 6))) this.fail('\\u must be followed by four hexadecimal digits', this.at, false);
          this.at += 6;
          continue;
        }
        if (next === undefined || !ESCAPES.has(next)) this.fail(`\\${next ?? ''} is not an escape JSON knows (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)`, this.at, false);
        this.at += 2;
        continue;
      }
      this.at++;
    }
  }

  private number(): void {
    const start = this.at;
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at));
    if (match) this.at += match[0].length;
    // "01", "1.", "-", ".5", "1e": not JSON numbers (a second number right after one is no better).
    if (!match || /^[.\deE+-]/.test(this.text[this.at] ?? '')) this.fail('this number is not written as JSON writes numbers (e.g. 42, -1.5, 2e3)', start, false);
  }

  private blank(): void {
    while (this.at < this.text.length && WHITESPACE.has(this.text[this.at])) this.at++;
  }

  /** Stops at `at` (line and column counted from 1); `found` adds what stands there. */
  private fail(what: string, at = this.at, found = true): never {
    const before = this.text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - (before.lastIndexOf('\n') + 1) + 1;
    const there = at >= this.text.length ? 'the end of the text' : shown(this.text[at]);
    throw new Mistake(`line ${line}, column ${column}: ${what}${found ? `, found ${there}` : ''}`);
  }
}

/** A character as the message quotes it: invisible ones by name. */
function shown(c: string): string {
  if (c === '\n') return 'a line break';
  if (c === '\t') return 'a tab';
  if (c < ' ') return `the control character U+${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`;
  return c === '"' ? "'\"'" : `"${c}"`;
}
