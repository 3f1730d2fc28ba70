import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSyntaxError, notJson } from '../../web/src/lib/json-syntax';

/**
 * The dashboard's own account of bad JSON (attachments, metadata, the console's context), in
 * place of the browser's parser message: it must refuse exactly what JSON.parse refuses, and say
 * where and what, in words.
 */
const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('jsonSyntaxError', () => {
  it('accepts every JSON text JSON.stringify writes, indented or not', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        expect(jsonSyntaxError(JSON.stringify(value, null, indent))).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('refuses exactly what JSON.parse refuses: valid texts with one character dropped, changed or added', () => {
    const damaged = fc
      .tuple(fc.jsonValue(), fc.nat(), fc.constantFrom('drop', 'replace', 'insert'), fc.constantFrom(...',:{}[]"\'\\-.0e1 \nxtn/'.split('')))
      .map(([value, at, how, c]) => {
        const text = JSON.stringify(value, null, 1) ?? 'null';
        const i = at % (text.length + 1);
        if (how === 'drop') return text.slice(0, i) + text.slice(i + 1);
        if (how === 'replace') return text.slice(0, i) + c + text.slice(i + 1);
        return text.slice(0, i) + c + text.slice(i);
      });
    fc.assert(
      fc.property(fc.oneof(damaged, fc.string({ maxLength: 12 })), (text) => {
        expect(jsonSyntaxError(text) === null).toBe(parses(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('says where and what, in words', () => {
    expect(notJson('{"color": "blue",}')).toBe('Not valid JSON at line 1, column 18: a comma before } is not allowed in JSON.');
    expect(notJson("{\n  'color': 'blue'\n}")).toBe(
      'Not valid JSON at line 2, column 3: strings and property names take double quotes (") in JSON, not single quotes, found "\'".',
    );
    expect(notJson('{"color" "blue"}')).toBe('Not valid JSON at line 1, column 10: expected : after the property name, found \'"\'.');
    expect(notJson('{"steps": [1, 2 3]}')).toBe('Not valid JSON at line 1, column 17: expected , or ] after the list item, found "3".');
    expect(notJson('{"a": 1} x')).toBe('Not valid JSON at line 1, column 10: unexpected text after the JSON value, found "x".');
    expect(notJson('{"a": "b')).toBe('Not valid JSON at line 1, column 7: this string is never closed (no ending ").');
    expect(notJson('{"a": 01}')).toBe('Not valid JSON at line 1, column 7: this number is not written as JSON writes numbers (e.g. 42, -1.5, 2e3).');
    expect(notJson('{"a": tru}')).toBe('Not valid JSON at line 1, column 7: expected a value (a string, number, object, array, true, false or null), found "t".');
    expect(notJson('{"a": ')).toBe('Not valid JSON at line 1, column 7: expected a value (a string, number, object, array, true, false or null), found the end of the text.');
  });
});
