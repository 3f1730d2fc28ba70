import { prefixedSignatureProblem } from './auth';
import { ignored, invalid, isObject, parseObject, refOf, type Json, utf8 } from './payload';
import type { Provider, PushedRef, Sorted } from './types';

/**
 * Bitbucket, both editions under one `scm.type`, told apart by `X-Event-Key`:
 * - Cloud sends `repo:push`, branches in `push.changes[].new` (or `.old` when a branch was
 *   deleted: `new` is null);
 * - Server / Data Center sends `repo:refs_changed`, refs in `changes[].ref`, and
 *   `diagnostics:ping` for "Test connection".
 * Both sign with `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>` (GitHub's SHA-1 header
 * name, with a SHA-256 value). Data Center's optional Basic authentication is not accepted:
 * a secret on the hook is required, as for every provider.
 */
export const bitbucket: Provider = {
  authenticate(headers, body, secret) {
    return prefixedSignatureProblem('X-Hub-Signature', headers('x-hub-signature'), secret, body);
  },

  classify(headers, body) {
    const event = headers('x-event-key')?.trim();
    if (!event) return invalid(undefined, 'no X-Event-Key header');
    if (event === 'diagnostics:ping') return ignored(event, 'ping');
    if (event !== 'repo:push' && event !== 'repo:refs_changed') return ignored(event, `event "${event}" is not a push`);
    const payload = parseObject(utf8(body));
    if (!payload.ok) return invalid(event, payload.reason);
    return event === 'repo:push' ? cloudPush(event, payload.value) : serverRefsChanged(event, payload.value);
  },
};

function cloudPush(event: string, payload: Json): Sorted {
  const changes = isObject(payload.push) ? payload.push.changes : undefined;
  if (!Array.isArray(changes)) return invalid(event, 'the repo:push payload has no push.changes list');
  const refs: PushedRef[] = [];
  for (const [i, change] of changes.entries()) {
    // A deleted branch has `new: null`; its name is in `old` (a tracked branch's deletion
    // still warrants a fetch, which prunes it).
    const state = isObject(change) ? (isObject(change.new) ? change.new : change.old) : undefined;
    if (!isObject(state) || typeof state.name !== 'string' || state.name === '') {
      return invalid(event, `push.changes[${i}] names no branch or tag (new.name / old.name)`);
    }
    const type = state.type;
    const kind = type === 'branch' || type === 'named_branch' ? 'branch' : type === 'tag' || type === 'annotated_tag' ? 'tag' : 'other';
    refs.push({ kind, name: state.name });
  }
  return { result: 'push', event, refs };
}

function serverRefsChanged(event: string, payload: Json): Sorted {
  const changes = payload.changes;
  if (!Array.isArray(changes)) return invalid(event, 'the repo:refs_changed payload has no changes list');
  const refs: PushedRef[] = [];
  for (const [i, change] of changes.entries()) {
    if (!isObject(change)) return invalid(event, `changes[${i}] is not an object`);
    const ref = isObject(change.ref) ? change.ref : {};
    // The full ref (`refs/heads/main`) is exact; displayId is the fallback for payloads without it.
    const id = typeof ref.id === 'string' ? ref.id : typeof change.refId === 'string' ? change.refId : undefined;
    if (id !== undefined && id !== '') refs.push(refOf(id));
    else if (typeof ref.displayId === 'string' && ref.displayId !== '') {
      refs.push({ kind: ref.type === 'BRANCH' ? 'branch' : ref.type === 'TAG' ? 'tag' : 'other', name: ref.displayId });
    } else return invalid(event, `changes[${i}] names no ref (ref.id, refId or ref.displayId)`);
  }
  return { result: 'push', event, refs };
}
