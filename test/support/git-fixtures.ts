import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeLicense } from '../../internal/license';

/** Flag files and licences shared by the Git environment and webhook tests. */

/** A features.yaml whose flag `colour` serves `variant` to everyone in `namespace`. */
export function everyoneGets(namespace: string, variant: string): string {
  return `version: "1.6"
namespace: ${namespace}
flags:
  - key: colour
    name: Colour
    enabled: true
    variants:
      - key: ${variant}
        name: ${variant}
    rules:
      - segment: everyone
        distributions:
          - variant: ${variant}
            rollout: 100
segments:
  - key: everyone
    name: Everyone
    match_type: ALL_MATCH_TYPE
`;
}

const testIssuer = createPrivateKey(readFileSync(join(__dirname, '../fixtures/license/issuer-test.key')));

/** A licence signed by the test issuer (the one development builds verify against). */
export function testLicence(features: string[] = ['webhook'], expires = '2099-01-01T00:00:00Z'): string {
  return encodeLicense({ v: 1, id: 'lic-test', customer: 'Pennon Tests', features, issued_at: '2026-01-01T00:00:00Z', expires_at: expires }, testIssuer);
}

/**
 * A server's settings for one Git storage, `flags` at `url`, polled hourly (so only `requestSync`,
 * what the webhook calls, moves it), with two environments on it: `production` (directory
 * `prod/`, the default) and `staging` (`staging/`).
 */
export function productionAndStaging(url: string): Record<string, string> {
  return {
    PENNON_STORAGE_FLAGS_REMOTE: url,
    PENNON_STORAGE_FLAGS_POLL_INTERVAL: '1h',
    PENNON_ENVIRONMENTS_PRODUCTION_STORAGE: 'flags',
    PENNON_ENVIRONMENTS_PRODUCTION_DIRECTORY: 'prod',
    PENNON_ENVIRONMENTS_PRODUCTION_DEFAULT: 'true',
    PENNON_ENVIRONMENTS_STAGING_STORAGE: 'flags',
    PENNON_ENVIRONMENTS_STAGING_DIRECTORY: 'staging',
  };
}
