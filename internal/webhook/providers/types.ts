/** The provider kinds of `environments.<key>.scm.type` (Flipt's complete list). */
export const SCM_TYPES = ['github', 'gitlab', 'gitea', 'bitbucket', 'azure'] as const;
export type ScmType = (typeof SCM_TYPES)[number];

/**
 * What the route does with a delivery: accepted → 202 and a fetch; ignored → 200; unauthorized
 * → 401; invalid → 400. The names are the `result` label of
 * service_incoming_webhook_requests_total (the route adds not_found for unknown environments).
 */
export type DeliveryResult = 'accepted' | 'ignored' | 'unauthorized' | 'invalid';

/** Request headers as Node gives them (lower-case names) or any record; names are matched without case. */
export type DeliveryHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface Delivery {
  /** The environment's `scm.type`: it alone picks the authentication, whatever the delivery's headers. */
  scm: ScmType;
  /** The environment's `scm.webhook.secret`, resolved. */
  secret: string;
  headers: DeliveryHeaders;
  /** The body exactly as received: signatures are over these bytes, never re-serialised JSON. */
  body: Uint8Array;
  /**
   * Branches the environment's storage tracks: exact names, or a prefix ending in `*` (Flipt's
   * refMatch, e.g. `flipt/production/*` for branch environments). A single string is one name.
   */
  tracked: string | readonly string[];
}

export interface Classification {
  result: DeliveryResult;
  /** The configured provider (the metric's `scm` label). */
  scm: ScmType;
  /** The provider's event name as sent (`push`, `Push Hook`, `repo:refs_changed`, `git.push`), once authenticated. */
  event?: string;
  /** accepted: the tracked branch that matched; ignored: the first branch pushed, if any. */
  branch?: string;
  /** Every branch the delivery names (Bitbucket and Azure can carry several refs). */
  branches?: string[];
  /**
   * Why, in words, for the log only: a 401 must not tell the caller which check failed, so the
   * route sends one identical response and logs this.
   */
  reason: string;
}

/** A ref named by a payload, already sorted into branch, tag or anything else. */
export interface PushedRef {
  kind: 'branch' | 'tag' | 'other';
  /** The branch or tag name without `refs/heads/` or `refs/tags/`; the full ref for `other`. */
  name: string;
}

/** A header reader over a delivery's headers (case-insensitive; a repeated header reads as absent). */
export type HeaderReader = (name: string) => string | undefined;

/** One provider: how it authenticates, and how its authenticated deliveries are sorted. */
export interface Provider {
  /** undefined when the delivery is authentic; otherwise why not. */
  authenticate(headers: HeaderReader, body: Uint8Array, secret: string): string | undefined;
  /** Sorts an authenticated delivery: event, payload, refs (never unauthorized). */
  classify(headers: HeaderReader, body: Uint8Array): Sorted;
}

/**
 * A provider's verdict before branch matching: either final (ignored or invalid, with the
 * event), or the refs a push names, which classifyDelivery matches against the tracked branches.
 */
export type Sorted =
  | { result: 'ignored' | 'invalid'; event?: string; reason: string }
  | { result: 'push'; event: string; refs: PushedRef[] };
