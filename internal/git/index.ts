import type { Logger } from 'pino';
import { gitStoragesOf, type Config } from '../config';
import { GitEnvironment } from './environment';
import { GitRepository } from './repository';
import type { GitObjects, ObjectsOptions } from './objects';
import type { SnapshotBuilder } from './snapshot-pages';

/**
 * Git-backed environments (Flipt v2's `storage`, `credentials`, `environments`): one repository
 * per storage key, fetched with isomorphic-git over http(s) and polled every `poll_interval`;
 * one evaluation snapshot per environment, built from its directory's flag files.
 */
export { GitEnvironment, type EnvironmentOptions } from './environment';
export { GitRepository, type RepositoryOptions, type SyncResult } from './repository';
export { asText, buildSnapshot, emptySnapshot, FlagFileError, isFlagFile, type EnvironmentSnapshot, type FlagFile, type FlagFileBytes, type GitNamespace } from './snapshot';
export { LocalGitObjects, type GitObjects, type ObjectsOptions } from './objects';
// The bulk thread reads objects.ts, snapshot.ts and snapshot-pages.ts directly (not this index).
export { SnapshotAssembler, type SnapshotBuilder, type SnapshotPage } from './snapshot-pages';
export { SyncQueue } from './sync-queue';
export { caCertificate } from './transport';

export interface GitEnvironmentsOptions {
  config: Config;
  logger: Logger;
  /** Counter hooks: a failed fetch (per storage), a commit that did not build (per environment). */
  onFetchError?: (storage: string, err: unknown) => void;
  onBuildError?: (environment: string, err: unknown) => void;
  /** How each environment turns a commit's files into its snapshot (default: in-process). */
  build?: SnapshotBuilder;
  /** Where each storage's fetches and reads run (default: in-process). */
  objects?: (options: ObjectsOptions) => GitObjects;
}

export class GitEnvironments {
  /** By name (the API's environment key). */
  readonly environments = new Map<string, GitEnvironment>();
  /** By storage key. */
  readonly repositories = new Map<string, GitRepository>();
  readonly default: GitEnvironment | undefined;

  constructor(options: GitEnvironmentsOptions) {
    const { config, logger } = options;
    const storages = gitStoragesOf(config.storage);
    for (const env of Object.values(config.environments)) {
      let repository = this.repositories.get(env.storage);
      if (!repository) {
        const storage = storages.get(env.storage)!; // checked at load
        const credential = storage.credentials === '' ? undefined : config.credentials[storage.credentials];
        repository = new GitRepository({ key: env.storage, storage, credential, logger, onFetchError: options.onFetchError, objects: options.objects });
        this.repositories.set(env.storage, repository);
      }
      this.environments.set(env.name, new GitEnvironment({ name: env.name, directory: env.directory, isDefault: env.default, scm: env.scm, repository, logger, onBuildError: options.onBuildError, build: options.build }));
    }
    this.default = [...this.environments.values()].find((e) => e.isDefault);
  }

  /**
   * The first fetch of every repository, then polling. A repository that cannot be fetched or
   * read leaves its environments empty (logged) and is retried by the poller: the service
   * starts either way.
   */
  async start(): Promise<void> {
    await Promise.all([...this.repositories.values()].map((r) => r.requestSync()));
    for (const repository of this.repositories.values()) repository.startPolling();
  }

  /** The environment by name, or the default one when no name is given. */
  get(name?: string): GitEnvironment | undefined {
    return name === undefined || name === '' ? this.default : this.environments.get(name);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.repositories.values()].map((r) => r.stop()));
  }
}
