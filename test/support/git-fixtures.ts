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
