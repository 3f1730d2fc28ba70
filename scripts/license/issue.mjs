#!/usr/bin/env node
// Issues a licence signed with an issuer's Ed25519 private key — by default the TEST issuer
// (test/fixtures/license/issuer-test.key), whose licences only development and test builds
// accept. Prints the licence text (for license.key, or a file for license.file).
//
//   node scripts/license/issue.mjs --customer "Acme" --features webhook --expires 2027-01-01T00:00:00Z
//   options: --id <id> (default: a random UUID), --issued <RFC 3339> (default: now),
//            --key <private key PEM> (default: the test issuer), --out <file> (default: stdout)
//
// The format is internal/license/format.ts's (base64url JSON payload "." base64url signature
// over the payload text); it is repeated here because a script cannot import TypeScript, and
// test/unit/license/issue-script.test.ts checks that what this prints verifies there.
import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const TEST_KEY = fileURLToPath(new URL('../../test/fixtures/license/issuer-test.key', import.meta.url));
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

function fail(message) {
  process.stderr.write(`issue: ${message}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      customer: { type: 'string' },
      features: { type: 'string', default: 'webhook' },
      expires: { type: 'string' },
      issued: { type: 'string' },
      id: { type: 'string' },
      key: { type: 'string', default: TEST_KEY },
      out: { type: 'string' },
    },
    strict: true,
  }));
} catch (err) {
  fail(err.message);
}

if (!values.customer?.trim()) fail('--customer is required');
if (!values.expires) fail('--expires is required (RFC 3339, e.g. 2027-01-01T00:00:00Z)');
for (const [name, value] of [['--expires', values.expires], ['--issued', values.issued]]) {
  if (value !== undefined && (!RFC3339.test(value) || Number.isNaN(Date.parse(value)))) fail(`${name} ${value} is not an RFC 3339 date-time`);
}

const payload = {
  v: 1,
  id: values.id ?? randomUUID(),
  customer: values.customer.trim(),
  features: values.features.split(',').map((f) => f.trim()).filter((f) => f !== ''),
  issued_at: values.issued ?? new Date().toISOString(),
  expires_at: values.expires,
};

let privateKey;
try {
  privateKey = createPrivateKey(readFileSync(values.key));
} catch (err) {
  fail(`cannot read the private key ${values.key}: ${err.message}`);
}
if (privateKey.asymmetricKeyType !== 'ed25519') fail(`${values.key} is a ${privateKey.asymmetricKeyType} key; licences are signed with Ed25519`);

const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
const text = `${body}.${sign(null, Buffer.from(body, 'ascii'), privateKey).toString('base64url')}\n`;
if (values.out) writeFileSync(values.out, text);
else process.stdout.write(text);
