import { describe, expect, it } from 'vitest';
import type { CompiledFlag, CompiledNamespace } from '../../internal/evaluation';
import { PatchedFlags, patchedNamespace } from '../../internal/evaluation/patch';
import { seededRandom } from '../support/seeded';

/**
 * A patch shares the old snapshot's flag map instead of copying it (internal/evaluation/patch.ts).
 * What must hold: every patched snapshot reads exactly as one built by copying (the map's
 * entries, lookups, size, the flags' order), and a snapshot never changes once
 * made — patches after it leave it as it was.
 */

const flag = (key: string, createdAt: number, version: number) => ({ key, createdAt, version }) as unknown as CompiledFlag;

/** The patch as it was: copy the map and the order, then change them. */
function copied(old: CompiledNamespace, revision: string, considered: string[], fresh: Map<string, CompiledFlag>): CompiledNamespace {
  const flags = new Map(old.flags);
  const keys = new Set(considered);
  const ordered = old.ordered.filter((f) => !keys.has(f.key) || fresh.has(f.key)).map((f) => fresh.get(f.key) ?? f);
  const added: CompiledFlag[] = [];
  for (const key of keys) {
    const now = fresh.get(key);
    if (!now) flags.delete(key);
    else {
      if (!old.flags.has(key)) added.push(now);
      flags.set(key, now);
    }
  }
  added.sort((a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : 1));
  return { key: old.key, revision, flags, ordered: [...ordered, ...added] };
}

/** The map's entries in key order (the namespace's order is `ordered`; nothing reads the map's own). */
const view = (s: CompiledNamespace) => ({
  revision: s.revision,
  entries: [...s.flags].map(([k, f]) => `${k}@${(f as unknown as { version: number }).version}`).sort(),
  keys: [...s.flags.keys()].sort(),
  size: s.flags.size,
  ordered: s.ordered.map((f) => `${f.key}@${(f as unknown as { version: number }).version}`),
});


describe('patchedNamespace', () => {
  it('reads as a copy would after 3,000 random patches — lookups, size, entries and order — and leaves every earlier snapshot as it was', () => {
    const rand = seededRandom(20261129);
    const initial = Array.from({ length: 1000 }, (_, i) => flag(`f${i}`, i, 0));
    const start: CompiledNamespace = { key: 'ns', revision: 'r0', flags: new Map(initial.map((f) => [f.key, f])), ordered: initial };
    let patched = start;
    let expected = start;
    let clock = 1000;
    const kept: { snapshot: CompiledNamespace; seen: ReturnType<typeof view> }[] = [];
    let flattened = 0;
    for (let step = 1; step <= 3000; step++) {
      // Mostly one flag (a write), sometimes many (a transaction, an import): replaced, added, removed.
      const count = rand() < 0.9 ? 1 : 1 + Math.floor(rand() * 40);
      const considered = Array.from({ length: count }, () => `f${Math.floor(rand() * 1500)}`);
      const fresh = new Map<string, CompiledFlag>();
      for (const key of considered) if (rand() < 0.8) fresh.set(key, flag(key, patched.flags.get(key)?.createdAt ?? clock++, step));
      patched = patchedNamespace(patched, { revision: `r${step}`, considered }, fresh);
      expected = copied(expected, `r${step}`, considered, fresh);
      if (step % 10 === 0 || count > 1) expect(view(patched), `step ${step}`).toEqual(view(expected));
      else expect(patched.ordered, `step ${step}`).toEqual(expected.ordered);
      for (const key of ['f0', 'f17', 'f999', 'f1000', 'f1499', ...considered]) {
        expect([patched.flags.has(key), patched.flags.get(key)], `step ${step}, ${key}`).toEqual([expected.flags.has(key), expected.flags.get(key)]);
      }
      if (!(patched.flags instanceof PatchedFlags)) flattened++;
      if (step % 250 === 0) kept.push({ snapshot: patched, seen: view(patched) });
    }
    for (const { snapshot, seen } of kept) expect(view(snapshot)).toEqual(seen);
    expect(view(start)).toEqual(view({ ...start, flags: new Map(initial.map((f) => [f.key, f])), ordered: initial }));
    expect(flattened).toBeGreaterThan(0); // the overlay was folded back into a plain map along the way
  });
});
