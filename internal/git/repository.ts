import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import type { FsClient, HttpClient } from 'isomorphic-git';
import { Volume, createFsFromVolume } from 'memfs';
import type { Logger } from 'pino';
import { normaliseDirectory, type CredentialConfig, type GitStorageConfig } from '../config';
import type { FlagFile } from './snapshot';
import { isFlagFile } from './snapshot';
import { SyncQueue } from './sync-queue';
import { authHeaders, httpClient, safeRemote } from './transport';

/**
 * One Git repository per storage key (as in Flipt: environments on one storage share its
 * repository, its poller and its fetch queue). Reads never touch a work tree: files come from
 * the fetched commit's tree.
 */

export interface RepositoryOptions {
  key: string;
  storage: GitStorageConfig;
  credential?: CredentialConfig;
  logger: Logger;
  /** A failed fetch (the hook for an error counter). */
  onFetchError?: (storage: string, err: unknown) => void;
}

/** Told the branch's commit after every successful sync; resolves when it has used it. */
export type Subscriber = (commit: string) => Promise<void>;

export interface SyncResult {
  /** The branch's commit after the sync (null: the branch has no commit yet). */
  commit: string | null;
  error: unknown;
}

export class GitRepository {
  readonly key: string;
  readonly remote: string;
  /** The branch fetched (a webhook's push must name it). */
  readonly branch: string;
  private readonly fs: FsClient;
  private readonly gitdir: string;
  private readonly http: HttpClient;
  private readonly headers: Record<string, string>;
  private readonly queue: SyncQueue<SyncResult>;
  private readonly subscribers: Subscriber[] = [];
  /** isomorphic-git's pack index cache: parsing a pack's index once, not per read. */
  private readonly cache = {};
  private timer: NodeJS.Timeout | undefined;
  private opened: Promise<void> | null = null;
  /** A local backend that is a clone with a work tree (its `.git` is used). */
  private readonly workTree: boolean = false;
  private stopped = false;
  /** The commit last handed to subscribers. */
  commit: string | null = null;
  readonly stats = { fetches: 0, fetchErrors: 0 };

  constructor(private readonly options: RepositoryOptions) {
    const { storage } = options;
    this.key = options.key;
    this.remote = storage.remote;
    this.branch = storage.branch;
    if (storage.backend.type === 'memory') {
      // memfs: the repository lives in this process only and is fetched again at every start.
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
    this.queue = new SyncQueue(() => this.syncOnce());
  }

  subscribe(subscriber: Subscriber): void {
    this.subscribers.push(subscriber);
  }

  /**
   * Asks for a fetch (the webhook's and the poller's entry): at most one runs and one waits;
   * concurrent calls share the waiting one, and one made during a fetch is never lost.
   */
  requestSync(): Promise<SyncResult> {
    return this.queue.request();
  }

  /** Fetches started so far (tests: coalescing). */
  get fetchRuns(): number {
    return this.queue.runs;
  }

  /** Resolves once no fetch is running or queued. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Polls every `poll_interval`; the first poll comes one interval after start, as in Flipt. */
  startPolling(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.requestSync(), this.options.storage.poll_interval);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.queue.idle();
  }

  /** The flag files under `directory` at `commit`, with their text. */
  async files(commit: string, directory: string): Promise<FlagFile[]> {
    const root = normaliseDirectory(directory);
    const out: FlagFile[] = [];
    const walk = async (treeOid: string, prefix: string): Promise<void> => {
      const { tree } = await git.readTree({ fs: this.fs, gitdir: this.gitdir, oid: treeOid, cache: this.cache });
      for (const entry of tree) {
        const path = prefix === '' ? entry.path : `${prefix}/${entry.path}`;
        if (entry.type === 'tree') await walk(entry.oid, path);
        else if (entry.type === 'blob' && isFlagFile(path)) {
          const { blob } = await git.readBlob({ fs: this.fs, gitdir: this.gitdir, oid: entry.oid, cache: this.cache });
          out.push({ path, text: Buffer.from(blob).toString('utf8') });
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

  /** The commit's time in epoch microseconds (what the snapshot's objects are stamped with). */
  async committedAt(commit: string): Promise<number> {
    const { commit: c } = await git.readCommit({ fs: this.fs, gitdir: this.gitdir, oid: commit, cache: this.cache });
    return c.committer.timestamp * 1_000_000;
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

  private async syncOnce(): Promise<SyncResult> {
    const { storage, logger } = this.options;
    const started = Date.now();
    let commit: string | null;
    try {
      await this.open();
      commit = await this.fetch();
    } catch (err) {
      this.stats.fetchErrors++;
      logger.error({ err, storage: this.key, remote: safeRemote(storage.remote), branch: storage.branch }, 'error performing fetch');
      this.options.onFetchError?.(this.key, err);
      // A local repository still holds what it fetched before this start: serve that meanwhile
      // (Flipt's `fetch_policy: lenient`, which we apply to every failure, not only network ones).
      const kept = this.commit === null ? await this.fetchedBefore() : null;
      if (kept === null) return { commit: this.commit, error: err };
      logger.warn({ storage: this.key, commit: kept }, 'serving the commit fetched before this start until the remote answers');
      this.commit = kept;
      for (const subscriber of this.subscribers) await subscriber(kept);
      return { commit: kept, error: err };
    }
    if (commit !== null && commit !== this.commit) {
      logger.debug({ storage: this.key, commit, ms: Date.now() - started }, 'fetched a new commit');
      this.commit = commit;
    }
    // Subscribers compare with what they built last, so telling them again costs nothing.
    if (commit !== null) for (const subscriber of this.subscribers) await subscriber(commit);
    return { commit, error: null };
  }

  /** The remote branch's commit as the repository holds it (a local backend, from an earlier run). */
  private async fetchedBefore(): Promise<string | null> {
    if (this.options.storage.backend.type !== 'local' || this.options.storage.remote === '') return null;
    try {
      return await git.resolveRef({ fs: this.fs, gitdir: this.gitdir, ref: `refs/remotes/origin/${this.options.storage.branch}` });
    } catch {
      return null;
    }
  }

  /** Brings the branch up to date; without a remote (a local repository) reads the branch. */
  private async fetch(): Promise<string | null> {
    const { storage } = this.options;
    if (storage.remote === '') {
      try {
        return await git.resolveRef({ fs: this.fs, gitdir: this.gitdir, ref: `refs/heads/${storage.branch}` });
      } catch {
        return null;
      }
    }
    this.stats.fetches++;
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
}
