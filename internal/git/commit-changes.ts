import { decodeDocuments, encodingOf, namespaceKeyOf, sortKeysDeep } from '../ext';
import { isFlagFile } from './snapshot';

/**
 * What one commit changed in an environment's flag files, per namespace: the flag files whose
 * blobs differ from the parent's (found by comparing tree ids, so unchanged directories are never
 * opened), then the flags and segments of those files' two versions compared by key. Only the
 * changed files are decoded: an unchanged file contributes the same objects to both sides, so it
 * cannot change the comparison — a flag moved between two files of a namespace is no change.
 */

/** The object reads the comparison needs (isomorphic-git's, in whichever thread holds the repository). */
export interface TreeReader {
  /** A tree's entries. */
  tree(oid: string): Promise<TreeEntry[]>;
  /** The tree at `path` under the tree `root` (`''`: `root` itself); null when there is none. */
  subtree(root: string, path: string): Promise<string | null>;
  blob(oid: string): Promise<Uint8Array>;
}

export interface TreeEntry {
  path: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
}

export type ChangeAction = 'created' | 'updated' | 'deleted';

/** A flag or segment a commit created, changed or removed. */
export interface ChangedObject {
  type: 'flag' | 'segment';
  key: string;
  action: ChangeAction;
}

/** A flag file the commit added, changed or removed; `error` when a version of it cannot be read. */
export interface ChangedFile {
  /** The path in the repository. */
  path: string;
  action: ChangeAction;
  error?: string;
}

export interface NamespaceChange {
  /** '' for a file that no version of could be read (its namespace is unknown). */
  namespace: string;
  /** `created` when every flag file of the namespace the commit touched is new, `deleted` when every one is gone. */
  action: ChangeAction;
  changed: ChangedObject[];
  files: ChangedFile[];
}

interface FileDiff {
  /** Relative to the environment's directory. */
  path: string;
  before: string | null;
  after: string | null;
}

/**
 * The flag files under `directory` that differ between two commit trees (`parentTree` null: the
 * root commit, everything is new), or null when the directory's tree is the same in both.
 */
export async function changedFlagFiles(reader: TreeReader, tree: string, parentTree: string | null, directory: string): Promise<FileDiff[] | null> {
  const after = await reader.subtree(tree, directory);
  const before = parentTree === null ? null : await reader.subtree(parentTree, directory);
  if (after === before) return null;
  const out: FileDiff[] = [];
  await compareTrees(reader, before, after, '', out);
  return out;
}

async function compareTrees(reader: TreeReader, before: string | null, after: string | null, prefix: string, out: FileDiff[]): Promise<void> {
  const entries = new Map<string, { before?: TreeEntry; after?: TreeEntry }>();
  for (const e of before === null ? [] : await reader.tree(before)) entries.set(e.path, { before: e });
  for (const e of after === null ? [] : await reader.tree(after)) entries.set(e.path, { ...entries.get(e.path), after: e });
  for (const [name, { before: b, after: a }] of [...entries].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    if (b?.oid === a?.oid && b?.type === a?.type) continue;
    const path = prefix === '' ? name : `${prefix}/${name}`;
    const treeOf = (e: TreeEntry | undefined) => (e?.type === 'tree' ? e.oid : null);
    const blobOf = (e: TreeEntry | undefined) => (e?.type === 'blob' ? e.oid : null);
    if (treeOf(b) !== null || treeOf(a) !== null) await compareTrees(reader, treeOf(b), treeOf(a), path, out);
    if ((blobOf(b) !== null || blobOf(a) !== null) && blobOf(b) !== blobOf(a) && isFlagFile(path)) out.push({ path, before: blobOf(b), after: blobOf(a) });
  }
}

/** One version of a file: its namespaces' flags and segments (canonical JSON by key), or why it cannot be read. */
interface Version {
  namespaces: Map<string, { flags: Map<string, string>; segments: Map<string, string> }>;
  error?: string;
}

async function readVersion(reader: TreeReader, path: string, oid: string | null): Promise<Version> {
  const namespaces: Version['namespaces'] = new Map();
  if (oid === null) return { namespaces };
  try {
    const bytes = await reader.blob(oid);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    // Lenient (not Flipt's strict schema): the trail says what a commit changed even in a file
    // the environment refused to serve.
    const { documents } = decodeDocuments(text, { encoding: encodingOf(path) ?? 'yaml', maxVersion: '1.6' });
    for (const doc of documents) {
      const ns = namespaceKeyOf(doc);
      let entry = namespaces.get(ns);
      if (!entry) namespaces.set(ns, (entry = { flags: new Map(), segments: new Map() }));
      for (const f of doc.flags ?? []) if (f.key) entry.flags.set(f.key, JSON.stringify(sortKeysDeep(f)));
      for (const s of doc.segments ?? []) if (s.key) entry.segments.set(s.key, JSON.stringify(sortKeysDeep(s)));
    }
    return { namespaces };
  } catch (err) {
    return { namespaces: new Map(), error: err instanceof Error ? err.message : String(err) };
  }
}

interface Side {
  flags: Map<string, string>;
  segments: Map<string, string>;
}

interface Accumulated {
  before: Side;
  after: Side;
  files: ChangedFile[];
  fileActions: ChangeAction[];
}

const fileAction = (d: FileDiff): ChangeAction => (d.before === null ? 'created' : d.after === null ? 'deleted' : 'updated');

/** The changed files' two versions decoded and compared, per namespace (sorted by namespace, objects by type and key). */
export async function namespaceChanges(reader: TreeReader, files: FileDiff[], directory: string): Promise<NamespaceChange[]> {
  const byNamespace = new Map<string, Accumulated>();
  const entryOf = (ns: string): Accumulated => {
    let entry = byNamespace.get(ns);
    const side = (): Side => ({ flags: new Map(), segments: new Map() });
    if (!entry) byNamespace.set(ns, (entry = { before: side(), after: side(), files: [], fileActions: [] }));
    return entry;
  };
  for (const diff of files) {
    const [before, after] = [await readVersion(reader, diff.path, diff.before), await readVersion(reader, diff.path, diff.after)];
    const action = fileAction(diff);
    const path = directory === '' ? diff.path : `${directory}/${diff.path}`;
    const error = before.error ?? after.error;
    const namespaces = new Set([...before.namespaces.keys(), ...after.namespaces.keys()]);
    // A file neither version of can be read is filed under no namespace: who broke it still shows.
    if (namespaces.size === 0 && error !== undefined) namespaces.add('');
    for (const ns of namespaces) {
      const entry = entryOf(ns);
      entry.files.push({ path, action, ...(error !== undefined && { error }) });
      entry.fileActions.push(action);
      // With one version unreadable, its objects are unknown: comparing would call them all created or deleted.
      if (error !== undefined) continue;
      for (const [side, version] of [[entry.before, before], [entry.after, after]] as const) {
        const objects = version.namespaces.get(ns);
        if (!objects) continue;
        for (const [k, v] of objects.flags) side.flags.set(k, v);
        for (const [k, v] of objects.segments) side.segments.set(k, v);
      }
    }
  }
  return [...byNamespace]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([namespace, e]) => ({
      namespace,
      action: e.fileActions.every((a) => a === 'created') ? 'created' : e.fileActions.every((a) => a === 'deleted') ? 'deleted' : 'updated',
      changed: [...compare('flag', e.before.flags, e.after.flags), ...compare('segment', e.before.segments, e.after.segments)],
      files: e.files,
    }));
}

function compare(type: ChangedObject['type'], before: Map<string, string>, after: Map<string, string>): ChangedObject[] {
  const out: ChangedObject[] = [];
  for (const key of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const [b, a] = [before.get(key), after.get(key)];
    if (b === a) continue;
    out.push({ type, key, action: b === undefined ? 'created' : a === undefined ? 'deleted' : 'updated' });
  }
  return out;
}
