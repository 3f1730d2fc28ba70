import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScmType } from '../../internal/webhook/providers';

/**
 * Signed webhook deliveries built from the provider payloads in test/fixtures/webhook-payloads/,
 * for the test's own secret and branch: the unit tests of internal/webhook/providers and the
 * route's integration tests send the same bytes. With the defaults (secret
 * `flipt-webhook-test-secret`, branch `main`) the body is the fixture file byte for byte, so the
 * HMACs pinned in test/unit/webhook/providers.test.ts apply.
 */

export const FIXTURE_DIR = join(__dirname, '../fixtures/webhook-payloads');
export const TEST_WEBHOOK_SECRET = 'flipt-webhook-test-secret';

/** The six kinds of delivery: Bitbucket's two editions share scm.type `bitbucket`. */
export type DeliveryKind = 'github' | 'gitlab' | 'gitea' | 'bitbucket-cloud' | 'bitbucket-server' | 'azure';
export const DELIVERY_KINDS: readonly DeliveryKind[] = ['github', 'gitlab', 'gitea', 'bitbucket-cloud', 'bitbucket-server', 'azure'];

export const SCM_OF: Record<DeliveryKind, ScmType> = {
  github: 'github',
  gitlab: 'gitlab',
  gitea: 'gitea',
  'bitbucket-cloud': 'bitbucket',
  'bitbucket-server': 'bitbucket',
  azure: 'azure',
};

export const FIXTURE_OF: Record<DeliveryKind, string> = {
  github: 'github-push.json',
  gitlab: 'gitlab-push.json',
  gitea: 'gitea-push.json',
  'bitbucket-cloud': 'bitbucket-cloud-push.json',
  'bitbucket-server': 'bitbucket-server-refs-changed.json',
  azure: 'azure-push.json',
};

export interface DeliveryOptions {
  /** The pushed branch (default `main`, the fixtures' own). */
  branch?: string;
  /** A full ref instead of a branch, e.g. `refs/tags/v1.4.0` (a tag push). */
  ref?: string;
  /** The secret to sign with (default TEST_WEBHOOK_SECRET). */
  secret?: string;
  /** The provider's event name (header, or Azure's eventType) instead of its push event. */
  event?: string;
  /** A raw body to send (and sign) instead of the fixture, e.g. malformed JSON. */
  body?: string | Buffer;
}

export interface BuiltDelivery {
  scm: ScmType;
  headers: Record<string, string>;
  body: Buffer;
}

export function fixture(name: string): Buffer {
  return readFileSync(join(FIXTURE_DIR, name));
}

export function hmacHex(secret: string, bytes: string | Buffer): string {
  return createHmac('sha256', secret).update(bytes).digest('hex');
}

const PUSH_EVENT: Record<DeliveryKind, string> = {
  github: 'push',
  gitlab: 'Push Hook',
  gitea: 'push',
  'bitbucket-cloud': 'repo:push',
  'bitbucket-server': 'repo:refs_changed',
  azure: 'git.push',
};

/** Points a parsed fixture at another ref, the way each provider names it. */
function setRef(kind: DeliveryKind, payload: any, ref: string): void {
  const tag = ref.startsWith('refs/tags/');
  const short = ref.replace(/^refs\/(heads|tags)\//, '');
  switch (kind) {
    case 'github':
    case 'gitea':
      payload.ref = ref;
      return;
    case 'gitlab':
      payload.ref = ref;
      if (tag) payload.object_kind = payload.event_name = 'tag_push';
      return;
    case 'bitbucket-cloud':
      for (const side of ['old', 'new']) Object.assign(payload.push.changes[0][side], { name: short, type: tag ? 'tag' : 'branch' });
      return;
    case 'bitbucket-server':
      payload.changes[0].ref = { id: ref, displayId: short, type: tag ? 'TAG' : 'BRANCH' };
      payload.changes[0].refId = ref;
      return;
    case 'azure':
      payload.resource.refUpdates[0].name = ref;
      return;
  }
}

/** A delivery as the provider would send it: body, event and authentication headers. */
export function buildDelivery(kind: DeliveryKind, options: DeliveryOptions = {}): BuiltDelivery {
  const secret = options.secret ?? TEST_WEBHOOK_SECRET;
  const ref = options.ref ?? `refs/heads/${options.branch ?? 'main'}`;
  let body: Buffer;
  if (options.body !== undefined) body = Buffer.from(options.body);
  else if (ref === 'refs/heads/main' && !(kind === 'azure' && options.event)) body = fixture(FIXTURE_OF[kind]);
  else {
    const payload = JSON.parse(fixture(FIXTURE_OF[kind]).toString('utf8'));
    setRef(kind, payload, ref);
    if (kind === 'azure' && options.event) payload.eventType = options.event;
    body = Buffer.from(`${JSON.stringify(payload, null, 2)}\n`);
  }
  const event = options.event ?? (kind === 'gitlab' && ref.startsWith('refs/tags/') ? 'Tag Push Hook' : PUSH_EVENT[kind]);
  const signature = hmacHex(secret, body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  switch (kind) {
    case 'github':
      Object.assign(headers, { 'x-github-event': event, 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${signature}` });
      break;
    case 'gitlab':
      Object.assign(headers, { 'x-gitlab-event': event, 'x-gitlab-token': secret, 'x-gitlab-event-uuid': randomUUID() });
      break;
    case 'gitea':
      // Real Gitea also sends GitHub's headers; they must not change the outcome.
      Object.assign(headers, {
        'x-gitea-event': event,
        'x-gitea-delivery': randomUUID(),
        'x-gitea-signature': signature,
        'x-github-event': event,
        'x-hub-signature-256': `sha256=${signature}`,
      });
      break;
    case 'bitbucket-cloud':
      Object.assign(headers, { 'x-event-key': event, 'x-hub-signature': `sha256=${signature}`, 'x-request-uuid': randomUUID(), 'x-hook-uuid': randomUUID() });
      break;
    case 'bitbucket-server':
      Object.assign(headers, { 'x-event-key': event, 'x-hub-signature': `sha256=${signature}`, 'x-request-id': randomUUID() });
      break;
    case 'azure':
      Object.assign(headers, {
        'content-type': 'application/json; charset=utf-8',
        authorization: `Basic ${Buffer.from(`flipt:${secret}`).toString('base64')}`,
      });
      break;
  }
  return { scm: SCM_OF[kind], headers, body };
}

/** The header that authenticates a delivery of this kind (for "missing header" cases). */
export const AUTH_HEADER: Record<DeliveryKind, string> = {
  github: 'x-hub-signature-256',
  gitlab: 'x-gitlab-token',
  gitea: 'x-gitea-signature',
  'bitbucket-cloud': 'x-hub-signature',
  'bitbucket-server': 'x-hub-signature',
  azure: 'authorization',
};
