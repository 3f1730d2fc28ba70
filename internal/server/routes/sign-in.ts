import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkSignInState, encodeSignInState, GITHUB_METHOD, oidcMethodOf, type FailedAuthentications, type GithubSignIn, type OidcSignIn, type SessionService, type SignInState } from '../../auth';
import { isPennonError, type AuthMethod } from '../../core';
import { authenticationToJson } from '../../wire';
import { auditOriginOf } from '../audit-origin';
import { serve } from '../route-table';
import type { SessionCookies } from '../session';

/**
 * Browser sign-in: `/auth/v1/method/oidc/{provider}/authorize|callback` and
 * `/auth/v1/method/github/authorize|callback`. The authorize route starts a sign-in — its secrets
 * in the `flipt_client_state` cookie — and sends a browser (Accept: text/html) on to the provider
 * with a 302, or answers anything else Flipt's `{authorizeUrl}`. The callback checks the state
 * against the cookie, lets the method finish (code exchange, identity, its own admission rules),
 * creates the session, sets the `flipt_client_token` cookie, and sends a browser to the
 * dashboard (`/`, under X-Forwarded-Prefix when a proxy gives one) or answers Flipt's
 * `{clientToken, authentication}`. Refusals are Flipt's error body: 401 for a sign-in refused
 * (counted against the address: past `authentication.rate_limit`, 429 before any work), 404 for
 * an unknown provider, 503 for a provider that cannot be reached.
 */

export interface SignInDeps {
  oidc: OidcSignIn | null;
  github: GithubSignIn | null;
  sessions: SessionService;
  cookies: SessionCookies;
  /** Refused sign-ins count against the caller's address, as bad tokens do (authentication.rate_limit). */
  failures: FailedAuthentications;
}

export function signInRoutes(app: FastifyInstance, deps: SignInDeps): void {
  const { oidc, github, cookies, failures } = deps;
  if (oidc) {
    serve(app, 'OidcAuthorizeUrl', async (request, reply) => {
      const { url, started } = await oidc.authorize(providerOf(request));
      return redirectOrAnswer(request, reply, cookies, url, started);
    });
    serve(app, 'OidcCallback', (request, reply) =>
      finishing(request, reply, cookies, failures, async (query) => {
        const provider = providerOf(request);
        oidc.requireProvider(provider); // an unknown one: 404 naming it, before its state is looked at
        const started = checkSignInState(cookies.stateOf(request), query.get('state') ?? undefined, oidcMethodOf(provider));
        return finish(request, reply, deps, 'METHOD_OIDC', await oidc.callback(provider, query, started));
      }),
    );
  }
  if (github) {
    serve(app, 'GithubAuthorizeUrl', async (request, reply) => {
      const { url, started } = github.authorize();
      return redirectOrAnswer(request, reply, cookies, url, started);
    });
    serve(app, 'GithubCallback', (request, reply) =>
      finishing(request, reply, cookies, failures, async (query) => {
        checkSignInState(cookies.stateOf(request), query.get('state') ?? undefined, GITHUB_METHOD);
        return finish(request, reply, deps, 'METHOD_GITHUB', await github.callback(query));
      }),
    );
  }
}

function providerOf(request: FastifyRequest): string {
  return (request.params as { provider?: string }).provider ?? '';
}

/** A browser navigating (it asks for HTML) is redirected; an API client gets JSON. */
function isBrowser(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

function redirectOrAnswer(request: FastifyRequest, reply: FastifyReply, cookies: SessionCookies, url: string, started: SignInState) {
  cookies.setState(reply, encodeSignInState(started));
  reply.header('cache-control', 'no-store');
  if (isBrowser(request)) return reply.redirect(url, 302);
  return { authorizeUrl: url };
}

/** A callback's work, its query string read as the provider sent it; a refusal spends the state cookie. */
async function finishing(request: FastifyRequest, reply: FastifyReply, cookies: SessionCookies, failures: FailedAuthentications, work: (query: URLSearchParams) => Promise<unknown>) {
  reply.header('cache-control', 'no-store');
  failures.admit(request.ip);
  try {
    return await work(new URL(request.url, 'http://pennon.invalid').searchParams);
  } catch (err) {
    cookies.clearState(reply);
    if (isPennonError(err) && err.kind === 'unauthenticated') failures.failed(request.ip, 'sign_in');
    throw err;
  }
}

async function finish(request: FastifyRequest, reply: FastifyReply, deps: SignInDeps, method: Extract<AuthMethod, 'METHOD_OIDC' | 'METHOD_GITHUB'>, metadata: Record<string, string>) {
  const { clientToken, authentication } = await deps.sessions.as(auditOriginOf(request)).create(method, metadata);
  deps.cookies.setToken(reply, clientToken, authentication.expiresAt);
  deps.cookies.clearState(reply);
  if (isBrowser(request)) return reply.redirect(dashboardHome(request), 302);
  return { clientToken, authentication: authenticationToJson(authentication) };
}

/** Where a signed-in browser lands: the dashboard's root, under the proxy's prefix if it names one. */
function dashboardHome(request: FastifyRequest): string {
  const prefix = request.headers['x-forwarded-prefix'];
  const given = typeof prefix === 'string' ? prefix.trim() : '';
  // Only a path: never another host (`//evil.example`), whatever a header says.
  return /^\/[A-Za-z0-9._~\-/]*$/.test(given) && !given.startsWith('//') ? `${given.replace(/\/+$/, '')}/` : '/';
}
