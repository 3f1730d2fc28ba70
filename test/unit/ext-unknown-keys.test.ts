import { describe, expect, it } from 'vitest';
import { ExtError, decodeDocuments, describeWarning, warningLines, type ExtWarning } from '../../internal/ext';

/**
 * Keys the document format does not know are ignored, as Flipt ignores them, but each one is
 * reported with its document and line; a document with no Flipt document shape is refused.
 */

const warningsOf = (text: string, encoding: 'yaml' | 'json' = 'yaml') => decodeDocuments(text, { encoding }).warnings.map(describeWarning);

function refusal(text: string, encoding: 'yaml' | 'json' = 'yaml'): ExtError {
  try {
    decodeDocuments(text, { encoding });
  } catch (err) {
    expect(err).toBeInstanceOf(ExtError);
    return err as ExtError;
  }
  throw new Error('the document was accepted');
}

describe('unknown keys', () => {
  const typos = [
    'version: "1.4"',
    'namespace: default',
    'flags:',
    '- key: a',
    '  name: A',
    '  enabeld: true',
    '  varaints:',
    '  - key: v',
    '---',
    'namespace: other',
    'flgas:',
    '- key: b',
    'segments:',
    '- key: s',
    '  name: S',
    '  constraints:',
    '  - {type: STRING_COMPARISON_TYPE, property: p, operator: eq, value: x, descripton: typo}',
    '',
  ].join('\n');

  it('are each reported with the document, where, and line (YAML)', () => {
    expect(warningsOf(typos)).toEqual([
      'unknown key "enabeld" ignored (document 1, namespace "default", flag "a", field enabeld, line 6)',
      'unknown key "varaints" ignored (document 1, namespace "default", flag "a", field varaints, line 7)',
      'unknown key "flgas" ignored (document 2, field flgas, line 11)',
      'unknown key "descripton" ignored (document 2, namespace "other", segment "s", field constraints[0].descripton, line 17)',
    ]);
    // Still read as Flipt reads it: the misspelt parts are simply absent.
    const [first, second] = decodeDocuments(typos, { encoding: 'yaml' }).documents;
    expect(first.flags).toEqual([{ key: 'a', name: 'A', enabled: false }]);
    expect(second.flags).toBeUndefined();
  });

  it('are reported in JSON lines too, on the document\'s line', () => {
    const text = '{"namespace": "default", "flags": [{"key": "a", "name": "A", "enabeld": true}]}\n{"namespace": "x", "segmnets": []}\n';
    expect(warningsOf(text, 'json')).toEqual([
      'unknown key "enabeld" ignored (document 1, namespace "default", flag "a", field enabeld, line 1)',
      'unknown key "segmnets" ignored (document 2, field segmnets, line 2)',
    ]);
  });

  it('are none in a document that uses only the format\'s keys', () => {
    const text =
      'version: "1.4"\nnamespace: {key: team, name: Team, description: d}\nflags:\n' +
      '- {key: f, name: F, type: VARIANT_FLAG_TYPE, description: d, enabled: true, metadata: {anything: goes}, variants: [{key: v, name: V, description: d, default: true, attachment: {any: thing}}],' +
      ' rules: [{segment: {keys: [s], operator: OR_SEGMENT_OPERATOR}, rank: 1, distributions: [{variant: v, rollout: 100}]}]}\n' +
      '- {key: b, name: B, type: BOOLEAN_FLAG_TYPE, enabled: true, rollouts: [{description: d, segment: {key: s, keys: [s], operator: OR_SEGMENT_OPERATOR, value: true}}, {threshold: {percentage: 50, value: true}}]}\n' +
      'segments:\n- {key: s, name: S, description: d, match_type: ANY_MATCH_TYPE, constraints: [{type: STRING_COMPARISON_TYPE, property: p, operator: eq, value: x, description: d}]}\n';
    expect(warningsOf(text)).toEqual([]);
  });

  it('are still refused when reading strictly (Git storage)', () => {
    expect(() => decodeDocuments(typos, { encoding: 'yaml', strict: true, maxVersion: '1.6' })).toThrow(/unknown field "enabeld"/);
  });

  it('are summed up past a limit, so ten thousand of them take two lines', () => {
    const warnings: ExtWarning[] = Array.from({ length: 10_000 }, (_, i) => ({
      message: i % 10 === 0 ? 'unknown key "descripton" ignored' : 'unknown key "enabeld" ignored',
      location: { document: 1, line: i + 1 },
    }));
    const lines = warningLines(warnings, 2);
    expect(lines).toEqual([
      'unknown key "descripton" ignored (document 1, line 1)',
      'unknown key "enabeld" ignored (document 1, line 2)',
      '… and 9998 more: unknown key "enabeld" ignored ×8999; unknown key "descripton" ignored ×999',
    ]);
  });
});

describe('a document with no Flipt document shape', () => {
  it('is refused when it is not a map, without echoing the whole input', () => {
    const passwd = Array.from({ length: 5000 }, (_, i) => `user${i}:x:${i}:${i}::/home/user${i}:/bin/sh`).join('\n');
    const err = refusal(passwd);
    expect(err.message).toMatch(/^not a Flipt document: expected a map with version, namespace, flags or segments at its top, found the string "user0:x:0:0::\/home\/user0:\/bin\/sh user1:x:1:1::\/home\/user1:\/b…" \(220559 characters\) \(document 1, line 1\)$/);
    expect(err.message.length).toBeLessThan(300);
    expect(refusal('- a\n- b\n').message).toBe('not a Flipt document: expected a map with version, namespace, flags or segments at its top, found a list (document 1, line 1)');
    expect(refusal('[1, 2]', 'json').message).toMatch(/^unmarshalling document: json: cannot unmarshal array into a document/);
  });

  it('is refused when none of its keys is the format\'s, naming what it found', () => {
    expect(refusal('name: my-app\nscripts:\n  build: make\n').message).toBe(
      'not a Flipt document: expected a map with version, namespace, flags or segments at its top, found the keys "name", "scripts" (document 1, line 1)',
    );
    expect(refusal('flags: []\n---\nflgas:\n- key: a\n').message).toBe(
      'not a Flipt document: expected a map with version, namespace, flags or segments at its top, found the keys "flgas" (document 2, line 3)',
    );
    // A version beside keys of its own (a package.json whose version Flipt's reader accepts) is no document either.
    expect(refusal('{"name": "app", "version": "1.2.0", "a": 1, "b": 2, "c": 3, "d": 4, "e": 5}', 'json').message).toBe(
      'not a Flipt document: expected a map with version, namespace, flags or segments at its top, found the keys "name", "version", "a", "b", "c" and 2 more (document 1, line 1)',
    );
  });

  it('is not refused for being empty or naming only a version', () => {
    expect(decodeDocuments('', { encoding: 'yaml' }).documents).toEqual([]);
    expect(decodeDocuments('version: "1.4"\n', { encoding: 'yaml' }).documents).toEqual([{ version: '1.4' }]);
    expect(decodeDocuments('{}', { encoding: 'json' }).documents).toEqual([{}]);
  });
});
