import { secretMatches } from './auth';
import { ignored, invalid, readBody, singleRefPush } from './payload';
import type { Provider } from './types';

/**
 * GitLab (gitlab.com and self-managed): the hook's secret token is sent back verbatim in
 * `X-Gitlab-Token` (no signature; compared in constant time). Pushes arrive as `Push Hook`;
 * group and instance hooks may send `System Hook` with `object_kind: push`. Tag pushes are a
 * separate event (`Tag Push Hook`, `object_kind: tag_push`).
 */
export const gitlab: Provider = {
  authenticate(headers, _body, secret) {
    const token = headers('x-gitlab-token');
    if (token === undefined) return 'no X-Gitlab-Token header';
    return secretMatches(secret, token) ? undefined : "X-Gitlab-Token is not this environment's webhook secret";
  },

  classify(headers, body) {
    const event = headers('x-gitlab-event')?.trim();
    if (!event) return invalid(undefined, 'no X-Gitlab-Event header');
    if (event === 'Tag Push Hook') return ignored(event, 'tag push');
    if (event !== 'Push Hook' && event !== 'System Hook') return ignored(event, `event "${event}" is not a push`);
    const payload = readBody(body, headers('content-type'));
    if (!payload.ok) return invalid(event, payload.reason);
    const kind = payload.value.object_kind;
    if (kind === 'tag_push') return ignored(event, 'tag push');
    // A system hook carries many kinds of events; only its pushes matter.
    if (event === 'System Hook' && kind !== 'push') return ignored(event, `system hook of kind ${JSON.stringify(kind)} is not a push`);
    return singleRefPush(event, payload.value);
  },
};
