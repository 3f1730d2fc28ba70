import { basicPassword, secretMatches } from './auth';
import { ignored, invalid, isObject, parseObject, refOf, utf8 } from './payload';
import type { PushedRef, Provider } from './types';

/**
 * Azure DevOps service hooks ("Web Hooks" consumer): HTTP Basic authentication with the
 * webhook secret as the password; the user name is free-form and not checked. There is no
 * event header — the event is the body's `eventType` (`git.push`), so the body is read only
 * after the credentials have been checked. Refs are in `resource.refUpdates[].name`.
 */
export const azure: Provider = {
  authenticate(headers, _body, secret) {
    const basic = basicPassword(headers('authorization'));
    if ('problem' in basic) return basic.problem;
    return secretMatches(secret, basic.password) ? undefined : "the Basic password is not this environment's webhook secret";
  },

  classify(_headers, body) {
    const payload = parseObject(utf8(body));
    if (!payload.ok) return invalid(undefined, payload.reason);
    const event = payload.value.eventType;
    if (typeof event !== 'string' || event === '') return invalid(undefined, 'the payload has no eventType');
    if (event !== 'git.push') return ignored(event, `event "${event}" is not a push`);
    const updates = isObject(payload.value.resource) ? payload.value.resource.refUpdates : undefined;
    // With the hook's "Resource details to send" set to None the refs are left out; without
    // them no branch can be matched, so the delivery is refused and the provider shows it failed.
    if (!Array.isArray(updates)) {
      return invalid(event, 'the git.push payload has no resource.refUpdates (set the service hook\'s "Resource details to send" to All)');
    }
    const refs: PushedRef[] = [];
    for (const [i, update] of updates.entries()) {
      if (!isObject(update) || typeof update.name !== 'string' || update.name === '') return invalid(event, `resource.refUpdates[${i}] has no name`);
      refs.push(refOf(update.name));
    }
    return { result: 'push', event, refs };
  },
};
