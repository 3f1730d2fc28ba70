import { describe, expect, it } from 'vitest';
import { buildSnapshot, FlagFileError, isFlagFile } from '../../internal/git';

/** Flag files → an environment snapshot (as Flipt v2's `internal/storage/fs/snapshot.go` reads them). */

describe('Git flag files', () => {
  it('finds */features.{yaml,yml,json} at any depth but never at the root', () => {
    expect(isFlagFile('a/features.yaml')).toBe(true);
    expect(isFlagFile('a/b/features.yml')).toBe(true);
    expect(isFlagFile('a/features.json')).toBe(true);
    expect(isFlagFile('features.yaml')).toBe(false);
    expect(isFlagFile('a/x.features.yml')).toBe(false);
    expect(isFlagFile('a/flipt.yaml')).toBe(false);
  });

  it('groups documents by their namespace field, across files and YAML streams', () => {
    const snapshot = buildSnapshot(
      [
        { path: 'b/features.yaml', text: 'namespace: b\nflags:\n  - {key: f2, name: F2}\n---\nnamespace: {key: c, name: Cee}\nsegments:\n  - {key: s, name: S}\n' },
        { path: 'a/features.json', text: '{"flags": [{"key": "f1", "name": "F1", "enabled": true}]}' },
        { path: 'c/features.yml', text: 'version: "1.6"\nnamespace: c\nflags:\n  - key: f3\n    name: F3\n    variants: [{key: v, name: V}]\n    rules: [{segment: s, distributions: [{variant: v, rollout: 100}]}]\n' },
      ],
      'abc123',
      5_000_000,
    );
    expect([...snapshot.namespaces.keys()].sort()).toEqual(['b', 'c', 'default']);
    expect([...snapshot.namespaces.get('default')!.compiled.flags.keys()]).toEqual(['f1']); // no namespace → default
    expect(snapshot.namespaces.get('c')!.namespace).toMatchObject({ key: 'c', name: 'Cee' });
    const c = snapshot.namespaces.get('c')!.data;
    expect(c.revision).toBe('abc123');
    expect(c.rules[0]).toMatchObject({ flagKey: 'f3', segmentKeys: ['s'], rank: 1 });
    expect(c.rules[0].distributions[0].variantId).toBe(c.flags[0].variants[0].id);
    expect(c.flags[0].createdAt).toBe(5_000_000);
  });

  it('fails the whole snapshot on one bad file, naming the file and line', () => {
    const build = () =>
      buildSnapshot(
        [
          { path: 'a/features.yaml', text: 'namespace: a\nflags:\n  - {key: f, name: F}\n' },
          { path: 'b/features.yaml', text: 'namespace: a\nflags:\n  - key: f\n    name: again\n' },
        ],
        'x',
        0,
      );
    expect(build).toThrow(FlagFileError);
    expect(build).toThrow(/^b\/features\.yaml: flag "a\/f" is not unique .*line 3/);
    expect(() => buildSnapshot([{ path: 'a/features.yaml', text: 'version: "1.7"\n' }], 'x', 0)).toThrow(/a\/features\.yaml: unsupported version: 1\.7/);
    expect(() => buildSnapshot([{ path: 'a/features.yaml', text: 'flags: []\nextra: 1\n' }], 'x', 0)).toThrow(/a\/features\.yaml: .*extra/);
  });
});
