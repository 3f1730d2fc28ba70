import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Clock } from '../core';
import { MemoryCache, RedisCache, type Cache } from '../cache';
import type { GitEnvironments } from '../git';
import { featureStatus, loadLicense, USING_TEST_ISSUER } from '../license';
import { createManagement } from '../management';
import { environmentSources, singleSource, type FlagSource, type FlagSources } from '../server';
import type { Snapshots } from '../snapshots';
import { readOnlyWrites, type ReadStore, type Store } from '../storage';
import type { CacheCounters, Metrics } from '../telemetry';

/**
 * The factories of the whole service's parts that need more than a constructor call, each
 * given only what it uses. Loaded by compose() only when it builds the whole service: a CLI
 * command that wants the database never loads the cache, the Git client or the HTTP server.
 */

/** The configured cache, if any; Redis being down at start is not an error (it is retried). */
export function openCache(config: Pick<Config, 'cache'>, logger: Logger, counters: CacheCounters | null): { cache: Cache | null; redis: RedisCache | null } {
  if (!config.cache.enabled) return { cache: null, redis: null };
  if (config.cache.backend === 'memory') return { cache: new MemoryCache(config.cache.memory.eviction_interval, { counters: counters ?? undefined }), redis: null };
  const redis = new RedisCache(config.cache.redis, logger, counters);
  logger.info({ redis: redis.target }, 'using the redis cache');
  return { cache: redis, redis };
}

/**
 * The Git environments, when any are configured: isomorphic-git is loaded only then. Fetch and
 * build failures are logged by the repositories and environments themselves, and counted here.
 */
export async function openEnvironments(config: Config, logger: Logger, metrics: Pick<Metrics, 'gitSyncError'> | null): Promise<GitEnvironments | null> {
  if (Object.keys(config.environments).length === 0) return null;
  const [{ GitEnvironments }, { threadedGitObjects, threadedSnapshotBuilder }] = await Promise.all([import('../git'), import('./git-thread')]);
  const environmentsOf = (storage: string) => Object.values(config.environments).filter((e) => e.storage === storage).map((e) => e.name);
  return new GitEnvironments({
    config,
    logger,
    onFetchError: (storage) => {
      for (const environment of environmentsOf(storage)) metrics?.gitSyncError(environment, 'fetch');
    },
    onBuildError: (environment) => metrics?.gitSyncError(environment, 'build'),
    // Fetches and reads on a thread per storage; each commit's files decoded on another,
    // compiled here a slice at a time (git-thread.ts).
    objects: threadedGitObjects,
    build: threadedSnapshotBuilder(),
  });
}

/**
 * Where each request reads flags. Without Git environments: the database (its snapshots and its
 * store; writes refused with `storage.read_only`). With them, flag state comes from Git: every
 * management read and every evaluation surface reads the environment the request names, and
 * writes get Flipt's read-only error.
 */
export async function flagSources(
  config: Pick<Config, 'storage'>,
  database: { store: Store; snapshots: Snapshots },
  environments: GitEnvironments | null,
): Promise<FlagSources> {
  const source = (name: string, snapshots: Snapshots, reads: ReadStore, readOnly: boolean, audit: FlagSource['audit']): FlagSource => {
    const management = createManagement(reads, readOnly ? readOnlyWrites() : database.store);
    return {
      name,
      snapshots,
      management,
      managementAs: readOnly ? () => management : (origin) => createManagement(reads, database.store.as(origin)),
      audit,
    };
  };
  const trail: FlagSource['audit'] = (query) => database.store.listAuditEvents(query);
  if (!environments) return singleSource(source('', database.snapshots, database.store, config.storage.read_only, trail));
  const { EnvironmentReadStore, EnvironmentSnapshots } = await import('../git/views');
  const all = [...environments.environments.values()];
  // A Git environment's trail is its branch's commits (git/history.ts).
  const sources = all.map((env) => source(env.name, new EnvironmentSnapshots(env), new EnvironmentReadStore(env), true, (query) => env.audit(query)));
  return environmentSources(sources, (environments.default ?? all[0]).name);
}

/** Whether the webhook is served: only with a licence that grants it (else a warning says why). */
export function webhookLicensed(config: Pick<Config, 'license'>, logger: Logger, clock: Clock): boolean {
  const licence = loadLicense({ key: config.license.key, file: config.license.file }, new Date(Math.floor(clock.nowMicros() / 1000)));
  if (licence.state !== 'none' && USING_TEST_ISSUER) logger.warn('this build verifies licences against the test issuer (built without PENNON_LICENSE_ISSUER_KEY): not for production');
  if (licence.state === 'valid') logger.info(licence.reason);
  else if (licence.state !== 'none') logger.warn({ licence: licence.state, problem: licence.problem }, licence.reason);
  const status = featureStatus(licence, 'webhook');
  if (!status.enabled) logger.warn(`the Git webhook endpoint is not served: ${status.reason}`);
  return status.enabled;
}
