import type { Logger } from 'pino';
import type { Config } from '../config';
import type { GitEnvironments } from '../git';
import { createManagement } from '../management';
import { environmentSources, type FlagSources } from '../server/sources';
import { readOnlyWrites } from '../storage';
import type { Metrics } from '../telemetry';

/**
 * The Git environments, when any are configured: isomorphic-git is loaded only then. Fetch and
 * build failures are logged by the repositories and environments themselves, and counted here.
 */
export async function openEnvironments(config: Config, logger: Logger, metrics: Metrics | null): Promise<GitEnvironments | null> {
  if (Object.keys(config.environments).length === 0) return null;
  const { GitEnvironments } = await import('../git');
  const environmentsOf = (storage: string) => Object.values(config.environments).filter((e) => e.storage === storage).map((e) => e.name);
  return new GitEnvironments({
    config,
    logger,
    onFetchError: (storage) => {
      for (const environment of environmentsOf(storage)) metrics?.gitSyncError(environment, 'fetch');
    },
    onBuildError: (environment) => metrics?.gitSyncError(environment, 'build'),
  });
}

/**
 * With Git environments, flag state comes from Git: every management read and every evaluation
 * surface reads the environment the request names, and writes get Flipt's read-only error.
 */
export async function gitSources(environments: GitEnvironments): Promise<FlagSources> {
  const { EnvironmentReadStore, EnvironmentSnapshots } = await import('../git/views');
  const writes = readOnlyWrites();
  const sources = [...environments.environments.values()].map((env) => ({
    name: env.name,
    snapshots: new EnvironmentSnapshots(env),
    management: createManagement(new EnvironmentReadStore(env), writes),
  }));
  const fallback = environments.default ?? [...environments.environments.values()][0];
  return environmentSources(sources, fallback.name);
}
