import type { FastifyInstance } from 'fastify';
import { gitStoragesOf, remoteWithoutUserInfo, type Config } from '../../config';
import { serve } from '../route-table';
import type { FlagSources } from '../sources';

/** Flipt v2's SCM enum as protojson writes it. */
const SCM: Record<string, string> = { github: 'SCM_GITHUB', gitea: 'SCM_GITEA', gitlab: 'SCM_GITLAB', azure: 'SCM_AZURE', bitbucket: 'SCM_BITBUCKET' };

/**
 * `GET /api/v2/environments` as Flipt v2 lists them (the name is both key and name; the default
 * first here), so tools and the dashboard can offer the environments X-Flipt-Environment accepts.
 * Served only with Git environments; credentials are never shown (the remote is shown without
 * any user:password part).
 */
export function environmentRoutes(app: FastifyInstance, sources: FlagSources, config: Config): void {
  const storages = gitStoragesOf(config.storage);
  const byName = new Map(Object.values(config.environments).map((e) => [e.name, e]));
  const body = {
    environments: sources.environments().map(({ name }) => {
      const env = byName.get(name)!;
      const storage = storages.get(env.storage);
      return {
        key: name,
        name,
        default: env.default,
        configuration: {
          ref: storage?.branch ?? 'main',
          ...(env.directory !== '' && { directory: env.directory }),
          ...(storage?.remote && { remote: remoteWithoutUserInfo(storage.remote) }),
          ...(env.scm?.type && SCM[env.scm.type] && { scm: SCM[env.scm.type] }),
        },
      };
    }),
  };
  serve(app, 'ListEnvironments', async () => body);
}
