/**
 * A short excerpt of the text around a parse error — the line, cut to a window around the
 * column, with a caret under it — so that a message never carries the whole input (a 4 MB file
 * that fails to parse must not come back as 4 MB on stderr or in a 400).
 */

/** Characters of the line shown around the column. */
const WINDOW = 72;

/** 1-based line and column of a 0-based offset. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/**
 * Line `line` (1-based) of `text`, at most WINDOW characters of it around `column` (1-based;
 * no caret without one), with `…` where it was cut. Tabs show as spaces so the caret lines up.
 * `lineOffset`: lines before `text` in the file it was cut from, for the line number shown.
 */
export function excerpt(text: string, line: number, column?: number, lineOffset = 0): string {
  let start = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf('\n', start);
    if (next === -1) return '';
    start = next + 1;
  }
  if (text.slice(start).trim() === '' && text.trim() !== '') {
    // The input ended too soon: the last line with content is the one to look at, up to its end.
    const content = text.trimEnd();
    const from = content.lastIndexOf('\n') + 1;
    return excerpt(text, positionOf(text, from).line, content.length - from + 1, lineOffset);
  }
  const end = text.indexOf('\n', start);
  const whole = text.slice(start, end === -1 ? text.length : end).replace(/\r$/, '').replace(/\t/g, ' ');
  const at = column === undefined ? 0 : Math.min(Math.max(column - 1, 0), whole.length);
  const from = whole.length <= WINDOW ? 0 : Math.max(0, Math.min(at - WINDOW / 2, whole.length - WINDOW));
  const shown = `${from > 0 ? '…' : ''}${whole.slice(from, from + WINDOW)}${from + WINDOW < whole.length ? '…' : ''}`;
  const gutter = String(line + lineOffset);
  const lines = [`  ${gutter} | ${shown}`];
  if (column !== undefined) lines.push(`  ${' '.repeat(gutter.length)} | ${' '.repeat(at - from + (from > 0 ? 1 : 0))}^`);
  return lines.join('\n');
}

/**
 * Where JSON text stops being one valid value: V8's "Unexpected token" messages give no
 * position. Only called after JSON.parse failed; -1 when no position is found (a nesting too
 * deep for this recursive reading, say).
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const n = text.length;
  const space = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const string = () => {
    for (i++; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) return void i++;
      if (c < 32) throw i;
      if (c === 92) {
        const e = text[++i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) throw i;
          i += 4;
        } else if (!'"\\/bfnrt'.includes(e ?? '')) throw i;
      }
    }
    throw n;
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '"') return string();
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) return void i++;
      for (;;) {
        if (close === '}') {
          space();
          if (text[i] !== '"') throw i;
          string();
          space();
          if (text[i] !== ':') throw i;
          i++;
        }
        value();
        space();
        if (text[i] === ',') i++;
        else if (text[i] === close) return void i++;
        else throw i;
      }
    }
    for (const word of ['true', 'false', 'null']) if (text.startsWith(word, i)) return void (i += word.length);
    NUMBER.lastIndex = i;
    if (!NUMBER.test(text)) throw i;
    i = NUMBER.lastIndex;
  };
  try {
    value();
    space();
    return i < n ? i : -1;
  } catch (at) {
    return typeof at === 'number' ? Math.min(at, n) : -1;
  }
}
