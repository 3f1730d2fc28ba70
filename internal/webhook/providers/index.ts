import { headerReader } from './auth';
import { azure } from './azure';
import { bitbucket } from './bitbucket';
import { gitea } from './gitea';
import { github } from './github';
import { gitlab } from './gitlab';
import { isTracked } from './payload';
import { SCM_TYPES, type Classification, type Delivery, type DeliveryHeaders, type Provider, type ScmType } from './types';

/**
 * Inbound Git webhook deliveries, per provider: authentication and classification as pure
 * functions over (scm.type, secret, headers, raw body, tracked branches). No I/O, no clock, no
 * logging: the route (POST /api/v2/webhooks/{environment}) maps the result to a status, counts
 * it, logs the reason, and schedules the fetch.
 *
 * Order, for every provider: authenticate first — over the raw bytes, before any parsing, so
 * an unauthenticated caller never reaches the JSON parser or learns anything from a 400 —
 * then the event, then the payload, then the branches.
 */

export type { Classification, Delivery, DeliveryHeaders, DeliveryResult, PushedRef, ScmType } from './types';
export { SCM_TYPES } from './types';
export { isTracked } from './payload';

/** The webhook endpoint's body limit; the route answers 413 above it. */
export const MAX_WEBHOOK_BODY_BYTES = 5 * 1024 * 1024;

const PROVIDERS: Record<ScmType, Provider> = { github, gitlab, gitea, bitbucket, azure };

export function isScmType(value: unknown): value is ScmType {
  return typeof value === 'string' && (SCM_TYPES as readonly string[]).includes(value);
}

/**
 * Authenticates and sorts one delivery for an environment. `unauthorized` whenever the
 * environment's own provider mechanism does not authenticate it (whatever the delivery looks
 * like); `invalid` for a malformed authenticated delivery; `ignored` for pings, other events,
 * tags and untracked branches; `accepted` (with the branch) when a tracked branch was pushed.
 */
export function classifyDelivery(delivery: Delivery): Classification {
  const { scm } = delivery;
  const provider = isScmType(scm) ? PROVIDERS[scm] : undefined;
  if (!provider) return { result: 'unauthorized', scm, reason: `scm.type ${JSON.stringify(scm)} is not one of ${SCM_TYPES.join(', ')}` };
  // Configuration refuses an empty secret at start; this is the last line of defence, since an
  // empty HMAC key or token would let anyone through.
  if (typeof delivery.secret !== 'string' || delivery.secret === '') return { result: 'unauthorized', scm, reason: 'no webhook secret is configured' };

  const headers = headerReader(delivery.headers);
  const problem = provider.authenticate(headers, delivery.body, delivery.secret);
  if (problem !== undefined) {
    const looks = detectProvider(delivery.headers);
    const hint = looks !== undefined && looks !== scm ? ` (the delivery looks like ${looks}'s, but this environment's scm.type is ${scm})` : '';
    return { result: 'unauthorized', scm, reason: `${problem}${hint}` };
  }

  const sorted = provider.classify(headers, delivery.body);
  if (sorted.result !== 'push') {
    const out: Classification = { result: sorted.result, scm, reason: sorted.reason };
    if (sorted.event !== undefined) out.event = sorted.event;
    return out;
  }

  const { event, refs } = sorted;
  const branches = refs.filter((r) => r.kind === 'branch').map((r) => r.name);
  if (branches.length === 0) {
    const tag = refs.find((r) => r.kind === 'tag');
    if (tag) return { result: 'ignored', scm, event, branches, reason: `tag push (${tag.name})` };
    if (refs.length === 0) return { result: 'ignored', scm, event, branches, reason: 'the push names no ref' };
    return { result: 'ignored', scm, event, branches, reason: `not a branch (${refs[0].name})` };
  }
  const patterns = typeof delivery.tracked === 'string' ? [delivery.tracked] : delivery.tracked;
  // Several refs in one delivery (Bitbucket, Azure): one tracked branch among them is enough.
  const match = branches.find((b) => isTracked(patterns, b));
  if (match !== undefined) return { result: 'accepted', scm, event, branch: match, branches, reason: `push to tracked branch ${match}` };
  return { result: 'ignored', scm, event, branch: branches[0], branches, reason: `untracked branch${branches.length > 1 ? 'es' : ''} ${branches.join(', ')}` };
}

/**
 * Which provider a delivery's headers look like, or undefined. Only a hint for the log when
 * authentication fails (a delivery from GitLab to an environment configured for github says
 * so); it never chooses the authentication. Gitea is tested first because it also sends
 * GitHub's X-GitHub-Event and X-Hub-Signature-256.
 */
export function detectProvider(headers: DeliveryHeaders): ScmType | undefined {
  const h = headerReader(headers);
  if (h('x-gitea-event') ?? h('x-forgejo-event') ?? h('x-gogs-event') ?? h('x-gitea-signature')) return 'gitea';
  if (h('x-gitlab-event') ?? h('x-gitlab-token')) return 'gitlab';
  if (h('x-github-event') ?? h('x-hub-signature-256')) return 'github';
  if (h('x-event-key')) return 'bitbucket';
  // Azure DevOps sends no event header, only its Basic credentials.
  if (/^Basic\s/i.test(h('authorization') ?? '')) return 'azure';
  return undefined;
}
