import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../core/json-depth';
import type { PushedRef, Sorted } from './types';

/** Reading payloads: JSON or form-encoded bodies, refs, and the checks every provider shares. */

export type Json = Record<string, unknown>;

/** The body as UTF-8 text, without copying the bytes first (bodies run up to 5 MiB). */
export function utf8(body: Uint8Array): string {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}

/** True for `application/x-www-form-urlencoded` (GitHub's and Gitea's "form" content type). */
export function isForm(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType);
}

/**
 * The JSON text inside a form-encoded delivery's `payload` field (GitHub and Gitea both wrap
 * the same JSON that way), or undefined when there is no such field.
 */
export function formPayload(body: Uint8Array): string | undefined {
  const value = new URLSearchParams(utf8(body)).get('payload');
  return value ?? undefined;
}

/** The body as a JSON object, or why it is not one. A UTF-8 byte-order mark is allowed. */
export function parseObject(text: string): { ok: true; value: Json } | { ok: false; reason: string } {
  // The same bound as every other request body (no provider's push nests anywhere near it).
  if (nestsDeeperThan(text)) return { ok: false, reason: `the payload nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` };
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return { ok: false, reason: 'the payload is not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'the payload is not a JSON object' };
  return { ok: true, value: value as Json };
}

/** The body's JSON object: from the `payload` field when form-encoded, else the body itself. */
export function readBody(body: Uint8Array, contentType: string | undefined): { ok: true; value: Json } | { ok: false; reason: string } {
  if (isForm(contentType)) {
    const text = formPayload(body);
    return text === undefined ? { ok: false, reason: 'a form-encoded delivery without a "payload" field' } : parseObject(text);
  }
  return parseObject(utf8(body));
}

/** Sorts a full ref name: `refs/heads/<branch>`, `refs/tags/<tag>`, or anything else. */
export function refOf(ref: string): PushedRef {
  if (ref.startsWith('refs/heads/') && ref.length > 'refs/heads/'.length) return { kind: 'branch', name: ref.slice('refs/heads/'.length) };
  if (ref.startsWith('refs/tags/') && ref.length > 'refs/tags/'.length) return { kind: 'tag', name: ref.slice('refs/tags/'.length) };
  return { kind: 'other', name: ref };
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The payload of a push whose pushed ref is the top-level `ref` field (GitHub, GitLab, Gitea:
 * one ref per delivery). A push without a `ref` string is malformed: 400 once authenticated.
 */
export function singleRefPush(event: string, payload: Json): Sorted {
  if (typeof payload.ref !== 'string' || payload.ref === '') return { result: 'invalid', event, reason: 'the push payload has no "ref"' };
  return { result: 'push', event, refs: [refOf(payload.ref)] };
}

export const ignored = (event: string | undefined, reason: string): Sorted => ({ result: 'ignored', event, reason });
export const invalid = (event: string | undefined, reason: string): Sorted => ({ result: 'invalid', event, reason });

/**
 * True when `branch` is tracked: equal to a pattern, or starting with a pattern's text before
 * its trailing `*` (Flipt's refMatch, used for `flipt/<environment>/*` branch environments).
 */
export function isTracked(patterns: readonly string[], branch: string): boolean {
  return patterns.some((p) => (p.endsWith('*') ? branch.startsWith(p.slice(0, -1)) : branch === p));
}
