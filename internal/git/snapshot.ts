import { createHash } from 'node:crypto';
import { DEFAULT_NAMESPACE, type Constraint, type Flag, type Namespace, type NamespaceData, type Rollout, type Rule, type Segment, type Variant } from '../core';
import { compileNamespace, type CompiledNamespace } from '../evaluation';
import { decodeDocuments, encodingOf, planImport, type DocumentPlan, type ExistingState } from '../ext';

/**
 * An environment's flag state at one commit: the flag files (`<dir>/features.{yaml,yml,json}`,
 * as Flipt v2's `internal/storage/fs/snapshot.go` finds them) read with `pennon flag import`'s
 * decoder and validation (versions up to 1.6, unknown keys refused as Flipt's CUE schema does),
 * turned into the same `NamespaceData` the database gives and compiled with the same
 * `compileNamespace`. Building is all or nothing: one bad file fails
 * the whole snapshot (as in Flipt), and the caller keeps the previous one.
 */

export interface FlagFile {
  /** Relative to the environment's root, e.g. `production/features.yaml` → `features.yaml` under `production/`. */
  path: string;
  text: string;
}

/** A flag file as the repository gives it. */
export interface FlagFileBytes {
  path: string;
  bytes: Uint8Array;
}

/** Flag files as text (UTF-8), what the decoder reads. */
export function asText(files: FlagFileBytes[]): FlagFile[] {
  return files.map(({ path, bytes }) => ({ path, text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') }));
}

export interface GitNamespace {
  namespace: Namespace;
  data: NamespaceData;
  compiled: CompiledNamespace;
}

export interface EnvironmentSnapshot {
  /** The commit it was built from ('' for the empty snapshot). */
  commit: string;
  namespaces: ReadonlyMap<string, GitNamespace>;
}

/** Flipt v2's discovery: `*\/features.{yaml,yml,json}` where `*` spans directories, never the root itself. */
export function isFlagFile(path: string): boolean {
  return /^.+\/features\.(ya?ml|json)$/.test(path);
}

/** A file that cannot be read; the message starts with the file and says the line. */
export class FlagFileError extends Error {
  constructor(
    readonly file: string,
    /** What is wrong, without the file (the message leads with it). */
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'FlagFileError';
  }
}

/** What an environment serves before any good commit: only the `default` namespace, no flags. */
export function emptySnapshot(): EnvironmentSnapshot {
  return { commit: '', namespaces: new Map([[DEFAULT_NAMESPACE, namespaceEntry(defaultNamespace(0), [], '')]]) };
}

/** Every flag file of the environment, in path order, into one snapshot; throws FlagFileError. */
export function buildSnapshot(files: FlagFile[], commit: string, committedAt: number): EnvironmentSnapshot {
  const namespaces = new Map<string, GitNamespace>();
  for (const { namespace, data } of snapshotData(files, commit, committedAt)) namespaces.set(namespace.key, { namespace, data, compiled: compileNamespace(data) });
  return { commit, namespaces };
}

/** A namespace of a commit as plain data (what a thread can send): compiled by whoever serves it. */
export interface NamespaceOfCommit {
  namespace: Namespace;
  data: NamespaceData;
}

/** The files read, checked and turned into domain data, `default` first; throws FlagFileError. */
export function snapshotData(files: FlagFile[], commit: string, committedAt: number): NamespaceOfCommit[] {
  const existing: ExistingState = { namespaces: new Set(), flags: new Map(), segments: new Map() };
  const plans: DocumentPlan[] = [];
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    try {
      const stream = decodeDocuments(file.text, { encoding: encodingOf(file.path) ?? 'yaml', maxVersion: '1.6', strict: true });
      // The state so far, so that a key repeated in another file is refused and a segment
      // defined in another file of the same namespace can be referred to.
      const plan = planImport(stream, existing);
      for (const doc of plan.documents) {
        existing.namespaces.add(doc.namespace);
        addKeys(existing.flags, doc.namespace, doc.flags.map((f) => f.input.key));
        addKeys(existing.segments, doc.namespace, doc.segments.map((s) => s.key));
        plans.push(doc);
      }
    } catch (err) {
      throw new FlagFileError(file.path, err instanceof Error ? err.message : String(err));
    }
  }
  return assemble(plans, commit, committedAt);
}

function addKeys(map: Map<string, Set<string>>, ns: string, keys: string[]): void {
  let set = map.get(ns);
  if (!set) map.set(ns, (set = new Set()));
  for (const key of keys) set.add(key);
}

interface Builder {
  namespace: Namespace;
  flags: Flag[];
  segments: Segment[];
  rules: Rule[];
  rollouts: Rollout[];
}

/**
 * Ids for objects that have none in the files: UUID-shaped, derived from their position (so the
 * same file gives the same ids at every commit and on every instance) and safe in a URL path.
 */
function positionalId(...parts: string[]): string {
  const h = createHash('sha1').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Plans → domain objects. Ids are positional (stable for a commit); times are the commit's. */
function assemble(plans: DocumentPlan[], commit: string, at: number): NamespaceOfCommit[] {
  const builders = new Map<string, Builder>();
  const builderOf = (ns: string): Builder => {
    let b = builders.get(ns);
    if (!b) builders.set(ns, (b = { namespace: ns === DEFAULT_NAMESPACE ? defaultNamespace(at) : plainNamespace(ns, at), flags: [], segments: [], rules: [], rollouts: [] }));
    return b;
  };
  builderOf(DEFAULT_NAMESPACE); // Flipt: `default` always exists
  for (const doc of plans) {
    const ns = doc.namespace;
    const b = builderOf(ns);
    if (doc.createNamespace) b.namespace = { ...b.namespace, name: doc.createNamespace.name, description: doc.createNamespace.description };
    const stamp = { createdAt: at, updatedAt: at };
    for (const seg of doc.segments) {
      const constraints: Constraint[] = seg.constraints.map((c, i) => ({ id: positionalId(ns, 'segment', seg.key, `c${i}`), namespaceKey: ns, segmentKey: seg.key, ...c, ...stamp }));
      b.segments.push({ namespaceKey: ns, key: seg.key, ...seg.input, constraints, ...stamp });
    }
    for (const fp of doc.flags) {
      const key = fp.input.key;
      const variants: Variant[] = fp.variants.map((v, i) => ({ id: positionalId(ns, 'flag', key, `v${i}`), namespaceKey: ns, flagKey: key, ...v, ...stamp }));
      b.flags.push({
        namespaceKey: ns,
        ...fp.input,
        variants,
        defaultVariant: fp.defaultVariant === null ? null : variants[fp.defaultVariant],
        ...stamp,
      });
      fp.rules.forEach((rule, i) => {
        const id = positionalId(ns, 'flag', key, `r${i}`);
        b.rules.push({
          id,
          namespaceKey: ns,
          flagKey: key,
          ...rule.input,
          rank: i + 1,
          distributions: rule.distributions.map((d, j) => ({ id: positionalId(id, `d${j}`), ruleId: id, variantId: variants[d.variant].id, rollout: d.rollout, ...stamp })),
          ...stamp,
        });
      });
      fp.rollouts.forEach((r, i) => {
        b.rollouts.push({
          id: positionalId(ns, 'flag', key, `o${i}`),
          namespaceKey: ns,
          flagKey: key,
          type: r.segment ? 'SEGMENT_ROLLOUT_TYPE' : 'THRESHOLD_ROLLOUT_TYPE',
          rank: i + 1,
          ...r,
          ...stamp,
        });
      });
    }
  }
  return [...builders].map(([ns, b]) => ({ namespace: b.namespace, data: { key: ns, revision: commit, flags: b.flags, segments: b.segments, rules: b.rules, rollouts: b.rollouts } }));
}

function namespaceEntry(namespace: Namespace, flags: Flag[], commit: string): GitNamespace {
  const data: NamespaceData = { key: namespace.key, revision: commit, flags, segments: [], rules: [], rollouts: [] };
  return { namespace, data, compiled: compileNamespace(data) };
}

function defaultNamespace(at: number): Namespace {
  return { key: DEFAULT_NAMESPACE, name: 'Default', description: 'Default namespace', protected: true, createdAt: at, updatedAt: at };
}

function plainNamespace(key: string, at: number): Namespace {
  return { key, name: key, description: '', protected: false, createdAt: at, updatedAt: at };
}
