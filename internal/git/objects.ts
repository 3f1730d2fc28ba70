import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import type { FsClient, HttpClient } from 'isomorphic-git';
import { Volume, createFsFromVolume } from 'memfs';
import { normaliseDirectory, type CredentialConfig, type GitStorageConfig } from '../config';
import type { AuditEvent, AuditQuery } from '../core';
import { CommitHistory, type CommitHeader, type HistoryReader } from './history';
import { isFlagFile, type FlagFileBytes } from './snapshot';
import { authHeaders, httpClient, safeRemote } from './transport';

/**
 * A storage's Git objects: the fetch and the reads of a commit (isomorphic-git). A repository
 * (repository.ts) drives it — its queue, poller and subscribers — wherever it runs: in this
 * thread (tests, one-off commands) or on a thread of its own for `serve` (service/git-thread.ts),
 * since indexing a fetched pack and inflating a large blob are synchronous JavaScript: a 17 MB
 * flag file held the event loop ~75 ms for each.
 */
export interface GitObjects {
  /** Brings the branch up to date and gives its commit; without a remote, reads the branch. */
  fetch(): Promise<string | null>;
  /** The remote branch's commit as an on-disk repository holds it from an earlier run. */
  fetchedBefore(): Promise<string | null>;
  /** The flag files under `directory` at `commit`, as bytes. */
  files(commit: string, directory: string): Promise<FlagFileBytes[]>;
  /** The commit's time in epoch microseconds (what the snapshot's objects are stamped with). */
  committedAt(commit: string): Promise<number>;
  /**
   * The audit events of `tip`'s history under `directory` that `query` selects, newest first
   * (history.ts): fetches older commits when the repository's history is shallow.
   */
  history(tip: string, directory: string, query: AuditQuery): Promise<AuditEvent[]>;
  close(): Promise<void>;
}

export interface ObjectsOptions {
  storage: GitStorageConfig;
  credential?: CredentialConfig;
}

export class LocalGitObjects implements GitObjects {
  private readonly fs: FsClient;
  private readonly gitdir: string;
  private readonly http: HttpClient;
  private readonly headers: Record<string, string>;
  /** isomorphic-git's pack index cache: parsing a pack's index once, not per read. */
  private readonly cache = {};
  private opened: Promise<void> | null = null;
  /** A local backend that is a clone with a work tree (its `.git` is used). */
  private readonly workTree: boolean = false;
  /** The fetch under way: a history fetch and the branch's sync never write the repository at once. */
  private fetching: Promise<unknown> = Promise.resolve();
  private readonly commits: CommitHistory;

  constructor(private readonly options: ObjectsOptions) {
    const { storage } = options;
    if (storage.backend.type === 'memory') {
      // memfs: the repository lives in this thread only and is fetched again at every start.
      this.fs = createFsFromVolume(new Volume()) as unknown as FsClient;
      this.gitdir = '/repository.git';
    } else {
      this.fs = nodeFs;
      const path = storage.backend.path;
      this.workTree = nodeFs.existsSync(join(path, '.git'));
      this.gitdir = this.workTree ? join(path, '.git') : path;
    }
    this.http = httpClient(storage);
    this.headers = authHeaders(options.credential);
    this.commits = new CommitHistory(this.historyReader());
  }

  fetch(): Promise<string | null> {
    return this.exclusive(() => this.fetchBranch());
  }

  private async fetchBranch(): Promise<string | null> {
    await this.open();
    const { storage } = this.options;
    if (storage.remote === '') {
      try {
        return await git.resolveRef({ fs: this.fs, gitdir: this.gitdir, ref: `refs/heads/${storage.branch}` });
      } catch {
        return null;
      }
    }
    const result = await git.fetch({
      fs: this.fs,
      http: this.http,
      gitdir: this.gitdir,
      url: storage.remote,
      ref: storage.branch,
      singleBranch: true,
      tags: false,
      // Only the tip is read; older history would only cost memory. Not in someone's work-tree
      // clone (a local backend with `.git`), which a shallow fetch would make shallow (as Flipt).
      depth: this.workTree ? undefined : 1,
      headers: this.headers,
      cache: this.cache,
    });
    if (!result.fetchHead) throw new Error(`branch "${storage.branch}" not found on ${safeRemote(storage.remote)}`);
    return result.fetchHead;
  }

  async fetchedBefore(): Promise<string | null> {
    const { storage } = this.options;
    if (storage.backend.type !== 'local' || storage.remote === '') return null;
    try {
      return await git.resolveRef({ fs: this.fs, gitdir: this.gitdir, ref: `refs/remotes/origin/${storage.branch}` });
    } catch {
      return null;
    }
  }

  async files(commit: string, directory: string): Promise<FlagFileBytes[]> {
    const root = normaliseDirectory(directory);
    const out: FlagFileBytes[] = [];
    const walk = async (treeOid: string, prefix: string): Promise<void> => {
      const { tree } = await git.readTree({ fs: this.fs, gitdir: this.gitdir, oid: treeOid, cache: this.cache });
      for (const entry of tree) {
        const path = prefix === '' ? entry.path : `${prefix}/${entry.path}`;
        if (entry.type === 'tree') await walk(entry.oid, path);
        else if (entry.type === 'blob' && isFlagFile(path)) {
          const { blob } = await git.readBlob({ fs: this.fs, gitdir: this.gitdir, oid: entry.oid, cache: this.cache });
          out.push({ path, bytes: blob });
        }
      }
    };
    let start: string;
    try {
      start = (await git.readTree({ fs: this.fs, gitdir: this.gitdir, oid: commit, filepath: root === '' ? undefined : root, cache: this.cache })).oid;
    } catch (err) {
      // A directory the commit does not have holds no flags (the environment is empty).
      if ((err as { code?: string }).code === 'NotFoundError') return [];
      throw err;
    }
    await walk(start, '');
    return out;
  }

  async committedAt(commit: string): Promise<number> {
    const { commit: c } = await git.readCommit({ fs: this.fs, gitdir: this.gitdir, oid: commit, cache: this.cache });
    return c.committer.timestamp * 1_000_000;
  }

  history(tip: string, directory: string, query: AuditQuery): Promise<AuditEvent[]> {
    return this.commits.events(tip, directory, query);
  }

  async close(): Promise<void> {}

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.fetching.then(work, work);
    this.fetching = run.catch(() => undefined);
    return run;
  }

  /** isomorphic-git's reads as history.ts asks for them. */
  private historyReader(): HistoryReader {
    const at = { fs: this.fs, gitdir: this.gitdir, cache: this.cache };
    const absent = (err: unknown) => (err as { code?: string }).code === 'NotFoundError';
    return {
      commit: async (oid): Promise<CommitHeader | null> => {
        try {
          const { commit } = await git.readCommit({ ...at, oid });
          return { oid, tree: commit.tree, parents: commit.parent, message: commit.message, author: commit.author, committer: commit.committer };
        } catch (err) {
          if (absent(err)) return null;
          throw err;
        }
      },
      tree: async (oid) => (await git.readTree({ ...at, oid })).tree,
      blob: async (oid) => (await git.readBlob({ ...at, oid })).blob,
      deepen: (depth) => this.exclusive(() => this.deepen(depth)),
    };
  }

  /**
   * The branch's history to `depth` commits from the remote's tip: the sync fetches only the tip
   * (older history would only cost memory), so the first look at older commits fetches them.
   */
  private async deepen(depth: number): Promise<boolean> {
    const { storage } = this.options;
    if (storage.remote === '') return false;
    await this.open();
    await git.fetch({
      fs: this.fs,
      http: this.http,
      gitdir: this.gitdir,
      url: storage.remote,
      // The local remote-tracking ref as ours, so the commits held are sent as haves and not fetched again.
      ref: `refs/remotes/origin/${storage.branch}`,
      remoteRef: storage.branch,
      singleBranch: true,
      tags: false,
      depth,
      headers: this.headers,
      cache: this.cache,
    });
    return true;
  }

  private open(): Promise<void> {
    this.opened ??= (async () => {
      const { storage } = this.options;
      await git.init({ fs: this.fs, gitdir: this.gitdir, bare: true, defaultBranch: storage.branch });
      // fetch needs the remote's refspec; `force` keeps a local repository's origin in line with the config.
      if (storage.remote !== '') await git.addRemote({ fs: this.fs, gitdir: this.gitdir, remote: 'origin', url: storage.remote, force: true });
    })();
    // A failed open (a local path that cannot be written) is tried again at the next sync.
    this.opened.catch(() => (this.opened = null));
    return this.opened;
  }
}
