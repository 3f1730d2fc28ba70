import type { FastifyInstance } from 'fastify';
import { publicConfig, type Config } from '../../config';
import { BUILD_DATE, COMMIT, IS_RELEASE, VERSION } from '../../core';
import type { MetaInfoJson } from '../../wire';
import { operation } from '../route-table';

/** Go's names for Node's platform and architecture, as Flipt reports its own. */
const GO_ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' };

/**
 * `/meta/info`: what the UI and operators read about this instance. Flipt builds it with Go's
 * encoding/json, so empty optional fields are left out (`omitempty`) rather than null.
 */
export function metaInfo(config: Config, gitBacked = false): MetaInfoJson {
  return {
    version: VERSION,
    ...(COMMIT !== '' && { commit: COMMIT }),
    ...(BUILD_DATE !== '' && { buildDate: BUILD_DATE }),
    updateAvailable: false,
    isRelease: IS_RELEASE,
    os: process.platform,
    arch: GO_ARCH[process.arch] ?? process.arch,
    authentication: { required: config.authentication.required },
    // Flags from Git environments are read-only through the API, as Flipt's git storage type is.
    storage: gitBacked ? { type: 'git', readOnly: true } : { type: config.storage.type, ...(config.storage.read_only && { readOnly: true }) },
    analytics: {},
    ui: { theme: 'system' },
  };
}

export function metaRoutes(app: FastifyInstance, config: Config, gitBacked = false): void {
  const info = metaInfo(config, gitBacked);
  operation(app, 'GetInfo', async () => info);
  const shown = publicConfig(config);
  operation(app, 'GetConfiguration', async () => shown);
}
