import { describe, expect, it } from 'vitest';
import { ExtError, decodeDocuments } from '../../internal/ext';
import { excerpt, jsonErrorOffset } from '../../internal/ext/excerpt';

/**
 * A file that fails to parse is reported with its line and a caret under the place, a bounded
 * excerpt: never the file itself, however large.
 */

function parseError(text: string, encoding: 'yaml' | 'json'): ExtError {
  try {
    decodeDocuments(text, { encoding });
  } catch (err) {
    expect(err).toBeInstanceOf(ExtError);
    return err as ExtError;
  }
  throw new Error('the text parsed');
}

/** The excerpt's source line and the character its caret points at. */
function pointedAt(message: string): { line: string; char: string } {
  const [, shown, caret] = message.split('\n');
  const text = shown.slice(shown.indexOf('| ') + 2);
  return { line: shown, char: text[caret.indexOf('^') - (caret.indexOf('| ') + 2)] };
}

const flags = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `flag_${i}`, name: `Flag ${i}`, enabled: true }));

describe('parse errors', () => {
  it('show the JSON line and a caret at the token V8 names without a position', () => {
    const body = JSON.stringify({ version: '1.4', flags: flags(50_000) });
    const at = body.indexOf('"enabled":', body.indexOf('"flag_25000"')) + '"enabled":'.length;
    const text = `${body.slice(0, at)}garbage${body.slice(at)}`;
    expect(text.length).toBeGreaterThan(2_000_000);
    const err = parseError(text, 'json');
    // V8's own quote of the source is left out: the excerpt shows where, and it would echo the input.
    expect(err.message.split('\n')[0]).toBe("unmarshalling document: json: Unexpected token 'g' (document 1, line 1)");
    expect(err.message.split('\n')).toHaveLength(3);
    expect(pointedAt(err.message).char).toBe('g');
    expect(err.message.length).toBeLessThan(400);
    expect(jsonErrorOffset(text)).toBe(at);
  });

  it('show the line of a pretty-printed JSON document where it broke', () => {
    const text = `${JSON.stringify({ flags: flags(3) }, null, 2).replace('"Flag 1"', '"Flag 1",,')}\n`;
    const err = parseError(text, 'json');
    const line = text.split('\n').findIndex((l) => l.includes(',,')) + 1;
    expect(err.message).toContain(`(document 1, line ${line})\n  ${line} |       "name": "Flag 1",,`);
    expect(pointedAt(err.message).char).toBe(',');
  });

  it('show the end of the input when it stops too soon', () => {
    const err = parseError('{"flags": [\n', 'json');
    expect(err.message).toBe('unmarshalling document: json: Unexpected end of JSON input (document 1, line 2)\n  1 | {"flags": [\n    |            ^');
  });

  it('show the YAML line and column, in a small and in a large stream', () => {
    const small = 'flags:\n- key: a\n  name: [unclosed, "x"\n  enabled: true\n';
    const err = parseError(small, 'yaml');
    expect(err.message.split('\n')[0]).toMatch(/^unmarshalling document: yaml: .* \(document 1, line \d+\)$/);
    expect(err.message.split('\n')).toHaveLength(3);

    // A large stream in the flow style: the same reader, the same line and caret.
    const rows = Array.from({ length: 20_000 }, (_, i) => `- {key: flag_${i}, name: Flag ${i}, enabled: true}`);
    rows[12_345] = '- {key: broken, name: "Flag, enabled: true}';
    const large = `flags:\n${rows.join('\n')}\n- {key: last}\n`;
    expect(large.length).toBeGreaterThan(256 * 1024);
    const big = parseError(large, 'yaml');
    const [first, shown, caret] = big.message.split('\n');
    expect(first).toMatch(/^unmarshalling document: yaml: .* \(document 1, line \d+\)$/);
    expect(shown).toMatch(/^ {2}\d+ \| /);
    expect(caret).toMatch(/^ {2} +\| +\^$/);
    expect(big.message.length).toBeLessThan(400);
  });

  it('cut a long line to a window around the column', () => {
    const line = `${'a'.repeat(5000)}X${'b'.repeat(5000)}`;
    const shown = excerpt(`first\n${line}\nlast\n`, 2, 5001);
    const [text, caret] = shown.split('\n');
    expect(text.length).toBeLessThan(90);
    expect(text).toMatch(/^ {2}2 \| …a+Xb+…$/);
    expect(text[caret.indexOf('^')]).toBe('X');
  });
});
