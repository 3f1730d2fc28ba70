import { hmacMatches } from './auth';
import { formPayload, ignored, invalid, isForm, parseObject, singleRefPush, utf8 } from './payload';
import type { HeaderReader, Provider } from './types';

/**
 * Gitea (and Forgejo, which sends the same X-Gitea-* headers): `X-Gitea-Signature` is the bare
 * lower-case hex HMAC-SHA256, without GitHub's `sha256=` prefix — a prefixed value is refused
 * (strict parsing: the header is Gitea's own, and Gitea never prefixes it). The event is
 * `X-Gitea-Event` (Forgejo: X-Forgejo-Event; Gogs compatibility: X-Gogs-Event).
 *
 * Gitea signs the JSON payload, not the request body: with the hook's form content type the
 * body is `payload=<JSON>` but the signature is over the JSON inside (services/webhook/
 * deliver.go signs PayloadContent). So a form delivery is verified over its decoded `payload`.
 */
function signedBytes(headers: HeaderReader, body: Uint8Array): Uint8Array | undefined {
  if (!isForm(headers('content-type'))) return body;
  const payload = formPayload(body);
  return payload === undefined ? undefined : Buffer.from(payload, 'utf8');
}

export const gitea: Provider = {
  authenticate(headers, body, secret) {
    const signature = headers('x-gitea-signature')?.trim();
    if (signature === undefined) return 'no X-Gitea-Signature header';
    if (!/^[0-9a-fA-F]{64}$/.test(signature)) return 'X-Gitea-Signature is not 64 hex digits (Gitea sends no "sha256=" prefix)';
    const signed = signedBytes(headers, body);
    if (signed === undefined) return 'a form-encoded delivery without a "payload" field has nothing signed';
    return hmacMatches(secret, signed, signature) ? undefined : "X-Gitea-Signature does not match the payload signed with this environment's webhook secret";
  },

  classify(headers, body) {
    const event = (headers('x-gitea-event') ?? headers('x-forgejo-event') ?? headers('x-gogs-event'))?.trim();
    if (!event) return invalid(undefined, 'no X-Gitea-Event header');
    if (event !== 'push') return ignored(event, `event "${event}" is not a push`);
    const signed = signedBytes(headers, body);
    // authenticate() has already refused a form without a payload; this keeps the types honest.
    if (signed === undefined) return invalid(event, 'a form-encoded delivery without a "payload" field');
    const payload = parseObject(utf8(signed));
    if (!payload.ok) return invalid(event, payload.reason);
    return singleRefPush(event, payload.value);
  },
};
