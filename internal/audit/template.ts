/**
 * The part of Go's text/template that Flipt's audit templates use (`audit.sinks.webhook.templates`
 * bodies), written here rather than pulled in: fields of the event (`{{ .Payload.key }}`, looked
 * up without regard to case, so Flipt's `.Type` and the JSON's `type` both work), `toJson` called
 * (`{{ toJson .Payload }}`) or piped (`{{ .Payload | toJson }}`), string literals, `{{- -}}`
 * trimming, comments, and `if` / `else if` / `else` / `end`. Anything else (range, with,
 * variables, other functions) is refused when the configuration is read, with where and why,
 * instead of failing at the first delivery.
 *
 * Printing follows Go where it matters to a JSON body: strings as they are (quote them in the
 * template, or use toJson), numbers and booleans as JSON. Where Go would print something no
 * receiver can use (`map[...]`, `<no value>`), objects print as JSON and what is missing as nothing.
 */

export class TemplateError extends Error {}

type Operand = { kind: 'field'; path: string[] } | { kind: 'literal'; value: unknown };
/** `toJson` over its argument, or the operand's own value. */
interface Command {
  toJson: boolean;
  operand: Operand | null;
}
type Pipeline = Command[];

type Node = { kind: 'text'; text: string } | { kind: 'print'; pipeline: Pipeline } | { kind: 'if'; branches: { test: Pipeline; body: Node[] }[]; otherwise: Node[] };

export interface Template {
  render(data: unknown): string;
}

const SUPPORTED = 'supported: fields (.Payload.key), string literals, toJson (called or piped), if / else if / else / end, {{- -}} and comments';

/** Parses `source`; throws TemplateError saying where and what is not supported. */
export function parseTemplate(source: string): Template {
  const nodes = new Parser(source).parse();
  return { render: (data) => renderNodes(nodes, data) };
}

interface Action {
  /** The action's text between the delimiters and trim markers. */
  body: string;
  /** Offset of the action's `{{` in the source (for positions). */
  at: number;
}

class Parser {
  private readonly items: (string | Action)[] = [];
  private pos = 0;

  constructor(private readonly source: string) {
    this.lex();
  }

  private where(offset: number): string {
    const before = this.source.slice(0, offset);
    const line = before.split('\n').length;
    return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
  }

  private fail(offset: number, message: string): never {
    throw new TemplateError(`${this.where(offset)}: ${message}`);
  }

  /** Text and actions, trim markers applied to the text beside them. */
  private lex(): void {
    const src = this.source;
    let from = 0;
    let trimNext = false;
    for (;;) {
      const open = src.indexOf('{{', from);
      let text = src.slice(from, open === -1 ? src.length : open);
      if (trimNext) text = text.replace(/^\s+/, '');
      if (open === -1) {
        if (text !== '') this.items.push(text);
        return;
      }
      let start = open + 2;
      // Go's markers need the space: `{{-3}}` is the number -3.
      const trimBefore = /^-[ \t\r\n]/.test(src.slice(start, start + 2));
      if (trimBefore) {
        text = text.replace(/\s+$/, '');
        start += 2;
      }
      if (text !== '') this.items.push(text);
      const close = this.findClose(start);
      if (close === -1) this.fail(open, 'an action opened with {{ is never closed with }}');
      let end = close;
      trimNext = /[ \t\r\n]-$/.test(src.slice(close - 2, close));
      if (trimNext) end -= 2;
      this.items.push({ body: src.slice(start, end), at: open });
      from = close + 2;
    }
  }

  /** The `}}` ending the action from `start`, skipping string literals and comments. */
  private findClose(start: number): number {
    const src = this.source;
    for (let i = start; i < src.length; i++) {
      const c = src[i];
      if (c === '"' || c === '`') {
        const endQuote = c === '"' ? /(?:[^"\\\n]|\\.)*"/y : /[^`]*`/y;
        endQuote.lastIndex = i + 1;
        if (!endQuote.exec(src)) this.fail(i, 'a string literal is never closed');
        i = endQuote.lastIndex - 1;
      } else if (c === '/' && src[i + 1] === '*') {
        const endComment = src.indexOf('*/', i + 2);
        if (endComment === -1) this.fail(i, 'a comment is never closed');
        i = endComment + 1;
      } else if (c === '}' && src[i + 1] === '}') return i;
    }
    return -1;
  }

  parse(): Node[] {
    const { nodes, stop } = this.block();
    if (stop) this.fail(stop.at, `{{ ${stop.word} }} without a matching {{ if }}`);
    return nodes;
  }

  /** Nodes up to the `else` or `end` that closes the block (null at the end of the source). */
  private block(): { nodes: Node[]; stop: { word: 'else' | 'end'; at: number; rest: string } | null } {
    const nodes: Node[] = [];
    while (this.pos < this.items.length) {
      const item = this.items[this.pos++];
      if (typeof item === 'string') {
        nodes.push({ kind: 'text', text: item });
        continue;
      }
      const body = item.body.trim();
      if (body.startsWith('/*')) {
        if (!body.endsWith('*/')) this.fail(item.at, 'a comment must be the whole action: {{/* … */}}');
        continue;
      }
      const word = /^[A-Za-z_]\w*/.exec(body)?.[0] ?? '';
      if (word === 'end' || word === 'else') return { nodes, stop: { word, at: item.at, rest: body.slice(word.length).trim() } };
      if (word === 'if') {
        nodes.push(this.ifNode(item, body.slice(2)));
        continue;
      }
      if (['range', 'with', 'define', 'template', 'block', 'break', 'continue'].includes(word)) this.fail(item.at, `{{ ${word} }} is not supported (${SUPPORTED})`);
      nodes.push({ kind: 'print', pipeline: this.pipeline(body, item.at) });
    }
    return { nodes, stop: null };
  }

  private ifNode(opening: Action, condition: string): Node {
    const branches: { test: Pipeline; body: Node[] }[] = [];
    let test = this.pipeline(condition.trim(), opening.at);
    for (;;) {
      const { nodes, stop } = this.block();
      if (!stop) this.fail(opening.at, '{{ if }} is never closed with {{ end }}');
      branches.push({ test, body: nodes });
      if (stop.word === 'end') {
        if (stop.rest !== '') this.fail(stop.at, `unexpected "${stop.rest}" after end`);
        return { kind: 'if', branches, otherwise: [] };
      }
      if (stop.rest.startsWith('if ') || stop.rest === 'if') {
        test = this.pipeline(stop.rest.slice(2).trim(), stop.at);
        continue;
      }
      if (stop.rest !== '') this.fail(stop.at, `unexpected "${stop.rest}" after else`);
      const last = this.block();
      if (!last.stop || last.stop.word !== 'end') this.fail(stop.at, '{{ else }} is never closed with {{ end }}');
      if (last.stop.rest !== '') this.fail(last.stop.at, `unexpected "${last.stop.rest}" after end`);
      return { kind: 'if', branches, otherwise: last.nodes };
    }
  }

  /** `cmd | cmd …`: each command after the first receives the previous value as its last argument. */
  private pipeline(text: string, at: number): Pipeline {
    if (text === '') this.fail(at, 'an empty action: it must name a value');
    const commands = splitOutsideStrings(text, '|').map((part, i) => this.command(part.trim(), at, i > 0));
    return commands;
  }

  private command(text: string, at: number, piped: boolean): Command {
    const words = splitWords(text);
    if (words === null) this.fail(at, `cannot read "${text}" (${SUPPORTED})`);
    if (words.length === 0) this.fail(at, 'an empty command in a pipeline');
    const [first, ...rest] = words;
    if (first === 'toJson') {
      if (rest.length > 1 || (piped ? rest.length !== 0 : rest.length !== 1)) this.fail(at, piped ? 'toJson takes the piped value alone: {{ .Payload | toJson }}' : 'toJson takes one argument: {{ toJson .Payload }}');
      return { toJson: true, operand: rest.length === 1 ? this.operand(rest[0], at) : null };
    }
    if (piped) this.fail(at, `only toJson can follow | (got "${first}")`);
    const operand = this.operand(first, at);
    if (rest.length > 0) this.fail(at, `a value takes no arguments: "${text}" (${SUPPORTED})`);
    return { toJson: false, operand };
  }

  private operand(word: string, at: number): Operand {
    if (word === '.') return { kind: 'field', path: [] };
    if (/^(\.[A-Za-z_]\w*)+$/.test(word)) return { kind: 'field', path: word.slice(1).split('.') };
    if (word.startsWith('"')) return { kind: 'literal', value: JSON.parse(word) as string };
    if (word.startsWith('`')) return { kind: 'literal', value: word.slice(1, -1) };
    if (/^-?\d+(\.\d+)?$/.test(word)) return { kind: 'literal', value: Number(word) };
    if (word === 'true' || word === 'false') return { kind: 'literal', value: word === 'true' };
    if (word === 'nil') return { kind: 'literal', value: null };
    if (word.startsWith('$')) this.fail(at, `variables (${word}) are not supported (${SUPPORTED})`);
    if (word.startsWith('(')) this.fail(at, `parentheses are not supported (${SUPPORTED})`);
    this.fail(at, `unknown function or value "${word}" (${SUPPORTED})`);
  }
}

/** `text` cut at `sep` where it is not inside a string literal. */
function splitOutsideStrings(text: string, sep: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === '`') quote = c;
    else if (c === sep) {
      parts.push(text.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(text.slice(from));
  return parts;
}

/** Words separated by blanks, string literals kept whole; null for what is not words (parentheses inside one). */
function splitWords(text: string): string[] | null {
  const words: string[] = [];
  const word = /\s*("(?:[^"\\]|\\.)*"|`[^`]*`|[^\s"`]+)/y;
  while (word.lastIndex < text.length) {
    const at = word.lastIndex;
    const m = word.exec(text);
    if (!m) return text.slice(at).trim() === '' ? words : null;
    words.push(m[1]);
  }
  return words;
}

function renderNodes(nodes: readonly Node[], data: unknown): string {
  let out = '';
  for (const node of nodes) {
    if (node.kind === 'text') out += node.text;
    else if (node.kind === 'print') out += printed(evaluate(node.pipeline, data));
    else {
      const branch = node.branches.find((b) => truthy(evaluate(b.test, data)));
      out += renderNodes(branch ? branch.body : node.otherwise, data);
    }
  }
  return out;
}

function evaluate(pipeline: Pipeline, data: unknown): unknown {
  let value: unknown = undefined;
  for (const command of pipeline) {
    const argument = command.operand ? resolve(command.operand, data) : value;
    value = command.toJson ? JSON.stringify(argument ?? null) : argument;
  }
  return value;
}

function resolve(operand: Operand, data: unknown): unknown {
  if (operand.kind === 'literal') return operand.value;
  let value = data;
  for (const name of operand.path) value = field(value, name);
  return value;
}

/** The field `name` of an object, the exact key first, else the first key equal to it ignoring case. */
function field(value: unknown, name: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, name)) return record[name];
  const lower = name.toLowerCase();
  const key = Object.keys(record).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : record[key];
}

/** Go's truth: false, 0, nil and empty strings, lists and maps are false. */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function printed(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
