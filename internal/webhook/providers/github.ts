import { prefixedSignatureProblem } from './auth';
import { ignored, invalid, readBody, singleRefPush } from './payload';
import type { Provider } from './types';

/**
 * GitHub (and GitHub Enterprise): `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`;
 * the event is `X-GitHub-Event`. The legacy SHA-1 `X-Hub-Signature` is never accepted. With the
 * hook's content type "application/x-www-form-urlencoded" the body is `payload=<JSON>` and the
 * signature covers those form bytes as sent, so authentication is the same either way.
 */
export const github: Provider = {
  authenticate(headers, body, secret) {
    return prefixedSignatureProblem('X-Hub-Signature-256', headers('x-hub-signature-256'), secret, body);
  },

  classify(headers, body) {
    const event = headers('x-github-event')?.trim();
    if (!event) return invalid(undefined, 'no X-GitHub-Event header');
    // Sent when a hook is created and by "Redeliver/Ping": authenticated, answered 200, no fetch.
    if (event === 'ping') return ignored(event, 'ping');
    if (event !== 'push') return ignored(event, `event "${event}" is not a push`);
    const payload = readBody(body, headers('content-type'));
    if (!payload.ok) return invalid(event, payload.reason);
    return singleRefPush(event, payload.value);
  },
};
