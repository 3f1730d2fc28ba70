import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import type { CredentialConfig, GitStorageConfig } from '../config';

/**
 * isomorphic-git's HTTP plugin on node:http(s). Its own `isomorphic-git/http/node` cannot be
 * given a CA or told to skip TLS checks (Flipt's `ca_cert_*`, `insecure_skip_tls`), and it pulls
 * in simple-get; this one is small and bundles as it stands.
 */

/** A fetch that stalls this long without a byte is abandoned (the next poll or request retries). */
const IDLE_TIMEOUT_MS = 60_000;

/** The storage's CA certificate (PEM), read from `ca_cert_path` when it is not given inline. */
export function caCertificate(storage: GitStorageConfig): string | undefined {
  return storage.ca_cert_bytes !== '' ? storage.ca_cert_bytes : storage.ca_cert_path !== '' ? readFileSync(storage.ca_cert_path, 'utf8') : undefined;
}

export function httpClient(storage: GitStorageConfig): HttpClient {
  const ca = caCertificate(storage);
  return {
    request: (req: GitHttpRequest) => send(req, { ca, rejectUnauthorized: !storage.insecure_skip_tls }),
  };
}

/** Hosts redirect renamed or moved repositories (GitHub does); more hops than this is a loop. */
const MAX_REDIRECTS = 5;

async function send(req: GitHttpRequest, tls: { ca?: string; rejectUnauthorized: boolean }): Promise<GitHttpResponse> {
  const chunks: Uint8Array[] = [];
  if (req.body) for await (const chunk of req.body) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  let url = new URL(req.url);
  for (let hop = 0; ; hop++) {
    const res = await once(req, url, body, tls);
    const location = res.headers?.location;
    if (![301, 302, 303, 307, 308].includes(res.statusCode) || location === undefined || hop === MAX_REDIRECTS) return res;
    for await (const _ of res.body ?? []) void _; // drain, so the socket can be reused
    url = new URL(location, url);
  }
}

function once(req: GitHttpRequest, url: URL, body: Buffer, tls: { ca?: string; rejectUnauthorized: boolean }): Promise<GitHttpResponse> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<GitHttpResponse>((resolve, reject) => {
    const outgoing = request(
      url,
      { method: req.method ?? 'GET', headers: { ...req.headers, ...(body.length > 0 && { 'content-length': String(body.length) }) }, ...tls },
      (res) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({
          url: url.toString(),
          method: req.method,
          statusCode: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
          headers,
          body: res[Symbol.asyncIterator]() as AsyncIterableIterator<Uint8Array>,
        });
      },
    );
    outgoing.setTimeout(IDLE_TIMEOUT_MS, () => outgoing.destroy(new Error(`no answer from ${url.host} for ${IDLE_TIMEOUT_MS / 1000}s`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * The Authorization header for a credential, sent with the first request (isomorphic-git's
 * onAuth would cost a 401 round trip per fetch). A token goes as basic `x-token-auth:<token>`,
 * as Flipt sends it; GitHub, GitLab, Gitea and Azure accept any user name.
 */
export function authHeaders(credential: CredentialConfig | undefined): Record<string, string> {
  if (!credential) return {};
  const pair =
    credential.access_token !== ''
      ? `x-token-auth:${credential.access_token}`
      : credential.basic && credential.basic.username !== ''
        ? `${credential.basic.username}:${credential.basic.password}`
        : null;
  return pair === null ? {} : { authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

/** The remote without any user:password in it, for logs. */
export { remoteWithoutUserInfo as safeRemote } from '../config';
