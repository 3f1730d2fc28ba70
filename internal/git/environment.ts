import type { Logger } from 'pino';
import type { EnvironmentConfig } from '../config';
import type { AuditEvent, AuditQuery, NamespaceData } from '../core';
import type { CompiledNamespace } from '../evaluation';
import type { EvaluationSource, PartialNamespaceData } from '../storage';
import type { GitRepository } from './repository';
import { emptySnapshot, FlagFileError, type EnvironmentSnapshot, type GitNamespace } from './snapshot';
import { buildInProcess, type SnapshotBuilder } from './snapshot-pages';

/**
 * One environment (Flipt v2's `environments.<key>`): the snapshot of its directory at the
 * storage's latest good commit. Evaluations read `snapshot` — one reference, replaced whole
 * when a new commit has been read and compiled — so a fetch or a rebuild never blocks them.
 * A commit whose files are invalid leaves the previous snapshot in service (logged with file
 * and line, counted); like Flipt, that commit is not read again until the branch moves.
 */

export interface EnvironmentOptions {
  /** The environment's name (its API key; defaults to its config key). */
  name: string;
  directory: string;
  isDefault: boolean;
  /** Its `scm` settings (provider, webhook secret), when configured. */
  scm?: EnvironmentConfig['scm'];
  repository: GitRepository;
  logger: Logger;
  /** A commit that could not be turned into a snapshot (the hook for an error counter). */
  onBuildError?: (environment: string, err: unknown) => void;
  /** How a commit's files become a snapshot (default: in this thread, in one piece). */
  build?: SnapshotBuilder;
}

export class GitEnvironment implements EvaluationSource {
  readonly name: string;
  readonly directory: string;
  readonly isDefault: boolean;
  readonly scm: EnvironmentConfig['scm'];
  readonly repository: GitRepository;
  private current: EnvironmentSnapshot = emptySnapshot();
  /** The last commit read (good or not). */
  private seen: string | null = null;
  readonly stats = { builds: 0, buildErrors: 0 };
  private readonly listeners = new Set<(snapshot: EnvironmentSnapshot) => void>();

  constructor(private readonly options: EnvironmentOptions) {
    this.name = options.name;
    this.directory = options.directory;
    this.isDefault = options.isDefault;
    this.scm = options.scm;
    this.repository = options.repository;
    this.repository.subscribe((commit) => this.update(commit));
  }

  /** The snapshot in service. */
  get snapshot(): EnvironmentSnapshot {
    return this.current;
  }

  /** A namespace's compiled snapshot, or undefined when the environment has no such namespace. */
  compiled(ns: string): CompiledNamespace | undefined {
    return this.current.namespaces.get(ns)?.compiled;
  }

  namespace(ns: string): GitNamespace | undefined {
    return this.current.namespaces.get(ns);
  }

  /** Told after every swap (caches, streams, metrics); returns the way to stop listening. */
  onChange(listener: (snapshot: EnvironmentSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The environment's audit trail: the commits of its branch that changed flag files under its
   * directory, newest first, from the branch's latest fetched commit — which a commit with bad
   * files still is, so who pushed it shows even while the previous snapshot is served.
   */
  async audit(query: AuditQuery): Promise<AuditEvent[]> {
    const tip = this.repository.commit;
    return tip === null ? [] : this.repository.history(tip, this.directory, query);
  }

  /** Asks the storage for a fetch (every environment on it is updated). */
  requestSync(): Promise<unknown> {
    return this.repository.requestSync();
  }

  // EvaluationSource, so a SnapshotCache (or anything written for the database) can sit on top.
  async loadNamespace(ns: string): Promise<NamespaceData | null> {
    return this.current.namespaces.get(ns)?.data ?? null;
  }

  /** A snapshot is rebuilt whole per commit, so partial reads never pay. */
  async loadFlags(): Promise<PartialNamespaceData | null> {
    return null;
  }

  async listRevisions(): Promise<Map<string, string>> {
    return new Map([...this.current.namespaces].map(([ns, entry]) => [ns, entry.data.revision]));
  }

  private async update(commit: string): Promise<void> {
    if (commit === this.seen) return;
    const previous = this.seen;
    this.seen = commit;
    const { logger } = this.options;
    try {
      const files = await this.repository.files(commit, this.directory);
      const next = await (this.options.build ?? buildInProcess)(files, commit, await this.repository.committedAt(commit));
      this.stats.builds++;
      this.current = next;
      logger.info({ environment: this.name, commit, namespaces: next.namespaces.size, files: files.length }, 'environment updated');
      for (const listener of this.listeners) {
        try {
          listener(next);
        } catch (err) {
          logger.error({ err, environment: this.name }, 'a listener of environment updates failed');
        }
      }
    } catch (err) {
      // Bad files wait for the next commit (Flipt); a failure to read the repository is retried.
      if (!(err instanceof FlagFileError)) this.seen = previous;
      this.stats.buildErrors++;
      const first = this.current.commit === '';
      const fields = { environment: this.name, commit, ...(err instanceof FlagFileError && { file: err.file }), err };
      logger.error(
        fields,
        first
          ? `invalid flag files: serving an empty environment until a good commit (${messageOf(err)})`
          : `invalid flag files: keeping the snapshot of commit ${this.current.commit} (${messageOf(err)})`,
      );
      this.options.onBuildError?.(this.name, err);
    }
  }
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
