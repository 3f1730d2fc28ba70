import { createHash } from 'node:crypto';
import { decodeDocuments, encodingOf, namespaceKeyOf, sortKeysDeep } from '../ext';
import { Kept } from './kept';
import { isFlagFile } from './snapshot';

/**
 * What one commit changed in an environment's flag files, per namespace: the flag files whose
 * blobs differ from the parent's (found by comparing tree ids, so unchanged directories are never
 * opened), then the flags and segments of those files' two versions compared by key. Only the
 * changed files are decoded: an unchanged file contributes the same objects to both sides, so it
 * cannot change the comparison — a flag moved between two files of a namespace is no change.
 * Walking a branch, one commit's tree and files are the next one's parent's: both are kept
 * (trees by id, files decoded by blob id), so each is read and decoded once.
 */

/** The object reads the comparison needs (isomorphic-git's, in whichever thread holds the repository). */
export interface TreeReader {
  /** A tree's entries. */
  tree(oid: string): Promise<TreeEntry[]>;
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

/** Trees kept (a few hundred bytes each), and the objects of decoded files (a digest per flag or segment). */
const TREES_KEPT = 20_000;
const OBJECTS_KEPT = 500_000;

export class CommitComparer {
  private readonly trees = new Kept<TreeEntry[]>(TREES_KEPT);
  private readonly versions = new Kept<Version>(OBJECTS_KEPT, (v) => 1 + [...v.namespaces.values()].reduce((n, ns) => n + ns.flags.size + ns.segments.size, 0));

  constructor(private readonly reader: TreeReader) {}

  /**
   * The flag files under `directory` that differ between two commit trees (`parentTree` null: the
   * root commit, everything is new), or null when the directory's tree is the same in both.
   */
  async changedFlagFiles(tree: string, parentTree: string | null, directory: string): Promise<FileDiff[] | null> {
    const after = await this.subtree(tree, directory);
    const before = parentTree === null ? null : await this.subtree(parentTree, directory);
    if (after === before) return null;
    const out: FileDiff[] = [];
    await this.compareTrees(before, after, '', out);
    return out;
  }

  /** The changed files' two versions decoded and compared, per namespace (sorted by namespace, objects by type and key). */
  async namespaceChanges(files: FileDiff[], directory: string): Promise<NamespaceChange[]> {
    const byNamespace = new Map<string, Accumulated>();
    const entryOf = (ns: string): Accumulated => {
      let entry = byNamespace.get(ns);
      const side = (): Side => ({ flags: new Map(), segments: new Map() });
      if (!entry) byNamespace.set(ns, (entry = { before: side(), after: side(), files: [], fileActions: [] }));
      return entry;
    };
    for (const diff of files) {
      const [before, after] = [await this.version(diff.path, diff.before), await this.version(diff.path, diff.after)];
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

  private async tree(oid: string): Promise<TreeEntry[]> {
    const kept = this.trees.get(oid);
    if (kept) return kept;
    const entries = await this.reader.tree(oid);
    this.trees.set(oid, entries);
    return entries;
  }

  /** The tree at `path` under the tree `root`, through the kept trees; null when there is none. */
  private async subtree(root: string, path: string): Promise<string | null> {
    let oid = root;
    for (const name of path === '' ? [] : path.split('/')) {
      const entry = (await this.tree(oid)).find((e) => e.path === name);
      if (entry?.type !== 'tree') return null;
      oid = entry.oid;
    }
    return oid;
  }

  private async compareTrees(before: string | null, after: string | null, prefix: string, out: FileDiff[]): Promise<void> {
    const entries = new Map<string, { before?: TreeEntry; after?: TreeEntry }>();
    for (const e of before === null ? [] : await this.tree(before)) entries.set(e.path, { before: e });
    for (const e of after === null ? [] : await this.tree(after)) entries.set(e.path, { ...entries.get(e.path), after: e });
    for (const [name, { before: b, after: a }] of [...entries].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
      if (b?.oid === a?.oid && b?.type === a?.type) continue;
      const path = prefix === '' ? name : `${prefix}/${name}`;
      const treeOf = (e: TreeEntry | undefined) => (e?.type === 'tree' ? e.oid : null);
      const blobOf = (e: TreeEntry | undefined) => (e?.type === 'blob' ? e.oid : null);
      if (treeOf(b) !== null || treeOf(a) !== null) await this.compareTrees(treeOf(b), treeOf(a), path, out);
      if ((blobOf(b) !== null || blobOf(a) !== null) && blobOf(b) !== blobOf(a) && isFlagFile(path)) out.push({ path, before: blobOf(b), after: blobOf(a) });
    }
  }

  /** One version of a file, decoded once: the same blob under the same encoding reads the same. */
  private async version(path: string, oid: string | null): Promise<Version> {
    if (oid === null) return { namespaces: new Map() };
    const encoding = encodingOf(path) ?? 'yaml';
    const key = `${encoding}:${oid}`;
    const kept = this.versions.get(key);
    if (kept) return kept;
    const version = await readVersion(this.reader, encoding, oid);
    this.versions.set(key, version);
    return version;
  }
}

/** One version of a file: its namespaces' flags and segments (a digest of each, by key), or why it cannot be read. */
interface Version {
  namespaces: Map<string, { flags: Map<string, string>; segments: Map<string, string> }>;
  error?: string;
}

/** An object's digest: equal for equal objects, whatever the order of their keys in the file. */
const digest = (value: unknown) => createHash('sha1').update(JSON.stringify(sortKeysDeep(value))).digest('base64');

async function readVersion(reader: TreeReader, encoding: 'yaml' | 'json', oid: string): Promise<Version> {
  const namespaces: Version['namespaces'] = new Map();
  try {
    const bytes = await reader.blob(oid);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    // Lenient (not Flipt's strict schema): the trail says what a commit changed even in a file
    // the environment refused to serve.
    const { documents } = decodeDocuments(text, { encoding, maxVersion: '1.6' });
    for (const doc of documents) {
      const ns = namespaceKeyOf(doc);
      let entry = namespaces.get(ns);
      if (!entry) namespaces.set(ns, (entry = { flags: new Map(), segments: new Map() }));
      for (const f of doc.flags ?? []) if (f.key) entry.flags.set(f.key, digest(f));
      for (const s of doc.segments ?? []) if (s.key) entry.segments.set(s.key, digest(s));
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

function compare(type: ChangedObject['type'], before: Map<string, string>, after: Map<string, string>): ChangedObject[] {
  const out: ChangedObject[] = [];
  for (const key of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const [b, a] = [before.get(key), after.get(key)];
    if (b === a) continue;
    out.push({ type, key, action: b === undefined ? 'created' : a === undefined ? 'deleted' : 'updated' });
  }
  return out;
}
