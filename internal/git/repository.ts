import type { Logger } from 'pino';
import type { CredentialConfig, GitStorageConfig } from '../config';
import type { AuditEvent, AuditQuery } from '../core';
import { LocalGitObjects, type GitObjects, type ObjectsOptions } from './objects';
import type { FlagFileBytes } from './snapshot';
import { SyncQueue } from './sync-queue';
import { safeRemote } from './transport';

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
  /** Where the Git work runs (default: in this thread). */
  objects?: (options: ObjectsOptions) => GitObjects;
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
  private readonly objects: GitObjects;
  private readonly queue: SyncQueue<SyncResult>;
  private readonly subscribers: Subscriber[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The commit last handed to subscribers. */
  commit: string | null = null;
  readonly stats = { fetches: 0, fetchErrors: 0 };

  constructor(private readonly options: RepositoryOptions) {
    const { storage } = options;
    this.key = options.key;
    this.remote = storage.remote;
    this.branch = storage.branch;
    this.objects = (options.objects ?? ((o) => new LocalGitObjects(o)))({ storage, credential: options.credential });
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
    await this.objects.close();
  }

  /** The flag files under `directory` at `commit`, as bytes. */
  files(commit: string, directory: string): Promise<FlagFileBytes[]> {
    return this.objects.files(commit, directory);
  }

  /** The commit's time in epoch microseconds (what the snapshot's objects are stamped with). */
  committedAt(commit: string): Promise<number> {
    return this.objects.committedAt(commit);
  }

  /** The audit events of `tip`'s history under `directory` (objects.ts, history.ts). */
  history(tip: string, directory: string, query: AuditQuery): Promise<AuditEvent[]> {
    return this.objects.history(tip, directory, query);
  }

  private async syncOnce(): Promise<SyncResult> {
    const { storage, logger } = this.options;
    const started = Date.now();
    let commit: string | null;
    try {
      if (storage.remote !== '') this.stats.fetches++;
      commit = await this.objects.fetch();
    } catch (err) {
      this.stats.fetchErrors++;
      logger.error({ err, storage: this.key, remote: safeRemote(storage.remote), branch: storage.branch }, 'error performing fetch');
      this.options.onFetchError?.(this.key, err);
      // A local repository still holds what it fetched before this start: serve that meanwhile
      // (Flipt's `fetch_policy: lenient`, which we apply to every failure, not only network ones).
      const kept = this.commit === null ? await this.objects.fetchedBefore().catch(() => null) : null;
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
}
