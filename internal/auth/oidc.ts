import * as client from 'openid-client';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { notFound, PennonError, unauthenticated, unavailable } from '../core';
import { boundedClaims, PENNON_METADATA, stringList } from './identity-claims';
import { OIDC_METADATA } from './sessions';
import { newSignInState, oidcMethodOf, type SignInState } from './sign-in-state';

/**
 * OIDC sign-in (Flipt's `authentication.methods.oidc`): the authorization code flow with
 * openid-client, one configuration per provider. A sign-in gets its own state, nonce and (with
 * `use_pkce`) PKCE verifier; the callback exchanges the code, verifies the ID token (signature
 * by the provider's keys, `algorithms`, issuer, audience, expiry, nonce), reads userinfo when the
 * provider has it, applies `email_matches`, and answers the session's metadata.
 *
 * Every request to the provider is bounded (OUTBOUND_TIMEOUT_S); discovery is kept once it
 * succeeds and tried again on the next sign-in after a failure, so a provider that was down at
 * start is picked up when it is back, and one that is down answers 503 at once, not a hang.
 */

type OidcConfig = Config['authentication']['methods']['oidc'];
type ProviderConfig = OidcConfig['providers'][string];

/** Seconds any one request to a provider may take (discovery, token, keys, userinfo). */
export const OUTBOUND_TIMEOUT_S = 5;

/** Flipt's scopes when none are configured. */
const DEFAULT_SCOPES = ['openid', 'profile', 'email'];

export interface OidcOptions {
  /** The claim holding the identity's groups (`authorization.groups_claim`). */
  groupsClaim: string;
  logger: Logger;
}

export class OidcSignIn {
  private readonly discovered = new Map<string, Promise<client.Configuration>>();
  private readonly emailMatches: RegExp[];

  constructor(
    private readonly config: OidcConfig,
    private readonly options: OidcOptions,
  ) {
    this.emailMatches = config.email_matches.map((pattern) => new RegExp(pattern));
  }

  /** The configured providers' names, for `GET /auth/v1/method`. */
  providers(): string[] {
    return Object.keys(this.config.providers);
  }

  /** The provider's authorization URL for a new sign-in, and the sign-in's secrets (for the state cookie). */
  async authorize(name: string): Promise<{ url: string; started: SignInState }> {
    const provider = this.providerConfig(name);
    const configuration = await this.configuration(name, provider);
    const started = newSignInState(oidcMethodOf(name), { pkce: provider.use_pkce });
    const parameters: Record<string, string> = {
      ...provider.authorize_parameters,
      redirect_uri: callbackUrl(provider.redirect_address, name),
      scope: scopesOf(provider).join(' '),
      state: started.state,
      nonce: started.nonce,
    };
    if (started.verifier !== null) {
      parameters.code_challenge = await client.calculatePKCECodeChallenge(started.verifier);
      parameters.code_challenge_method = 'S256';
    }
    return { url: client.buildAuthorizationUrl(configuration, parameters).href, started };
  }

  /**
   * Finishes a sign-in: `query` is the callback's query string, `started` the sign-in its state
   * cookie holds (already checked against the query's state). Answers the session's metadata.
   */
  async callback(name: string, query: URLSearchParams, started: SignInState): Promise<Record<string, string>> {
    const provider = this.providerConfig(name);
    const error = query.get('error');
    if (error !== null) throw unauthenticated(`the provider refused the sign-in: ${error}${describe(query.get('error_description'))}`);
    if (!query.get('code')) throw unauthenticated('missing code parameter');
    const configuration = await this.configuration(name, provider);
    // The redirect_uri sent with the code is the one the authorization request named.
    const currentUrl = new URL(callbackUrl(provider.redirect_address, name));
    currentUrl.search = query.toString();
    const tokens = await outbound(name, () =>
      client.authorizationCodeGrant(configuration, currentUrl, {
        expectedState: started.state,
        expectedNonce: started.nonce,
        pkceCodeVerifier: started.verifier ?? undefined,
        idTokenExpected: true,
      }),
    );
    const idClaims = tokens.claims() as Record<string, unknown> | undefined;
    if (!idClaims) throw unauthenticated('the provider answered without an ID token');
    const claims = { ...(await this.userinfo(name, configuration, tokens.access_token, String(idClaims.sub))), ...idClaims };
    const email = typeof claims.email === 'string' ? claims.email : '';
    if (this.emailMatches.length > 0 && !this.emailMatches.some((pattern) => pattern.test(email))) {
      throw unauthenticated(email === '' ? 'the identity has no email, and authentication.methods.oidc.email_matches requires one' : `email ${email} is not allowed to sign in (authentication.methods.oidc.email_matches)`);
    }
    return sessionMetadata(name, claims, this.options.groupsClaim);
  }

  /** Refuses (404, naming it) a provider that is not configured. */
  requireProvider(name: string): void {
    this.providerConfig(name);
  }

  private providerConfig(name: string): ProviderConfig {
    const provider = Object.hasOwn(this.config.providers, name) ? this.config.providers[name] : undefined;
    if (!provider) throw notFound(`requested provider "${name}": provider not found`);
    return provider;
  }

  /** The provider's discovered configuration: kept once found, looked up again after a failure. */
  private configuration(name: string, provider: ProviderConfig): Promise<client.Configuration> {
    let pending = this.discovered.get(name);
    if (!pending) {
      pending = outbound(name, () => discover(provider));
      this.discovered.set(name, pending);
      // Forgotten on failure, so the next sign-in tries again (the request's 503 is logged as request failures are).
      pending.catch(() => this.discovered.delete(name));
    }
    return pending;
  }

  /** Userinfo's claims, when the provider has the endpoint; the ID token's suffice when it fails. */
  private async userinfo(name: string, configuration: client.Configuration, accessToken: string, sub: string): Promise<Record<string, unknown>> {
    if (!configuration.serverMetadata().userinfo_endpoint || !accessToken) return {};
    try {
      return (await client.fetchUserInfo(configuration, accessToken, sub)) as Record<string, unknown>;
    } catch (err) {
      this.options.logger.warn({ err, provider: name }, 'OIDC userinfo failed; the ID token claims are used alone');
      return {};
    }
  }
}

export function callbackUrl(redirectAddress: string, provider: string): string {
  return `${redirectAddress.replace(/\/+$/, '')}/auth/v1/method/oidc/${encodeURIComponent(provider)}/callback`;
}

function scopesOf(provider: ProviderConfig): string[] {
  if (provider.scopes.length === 0) return DEFAULT_SCOPES;
  return provider.scopes.includes('openid') ? provider.scopes : ['openid', ...provider.scopes];
}

async function discover(provider: ProviderConfig): Promise<client.Configuration> {
  const issuer = provider.issuer_url;
  const where = provider.discovery_url !== '' ? provider.discovery_url : issuer;
  if (where === '') throw unavailable('the provider has neither issuer_url nor discovery_url');
  const url = new URL(where);
  const metadata: Partial<client.ClientMetadata> = {
    client_secret: provider.client_secret,
    // oauth4webapi compares the ID token's `alg` with a list as well as with one name.
    id_token_signed_response_alg: (provider.algorithms.length === 1 ? provider.algorithms[0] : provider.algorithms) as string,
  };
  const configuration = await client.discovery(url, provider.client_id, metadata, undefined, {
    timeout: OUTBOUND_TIMEOUT_S,
    // An issuer on plain http (a provider on loopback, a test) is the operator's choice to make.
    execute: url.protocol === 'http:' ? [client.allowInsecureRequests] : [],
  });
  const server = configuration.serverMetadata();
  // A discovery_url given directly skips openid-client's issuer check: make it here.
  if (issuer !== '' && provider.discovery_url !== '' && server.issuer.replace(/\/+$/, '') !== issuer.replace(/\/+$/, '')) {
    throw unavailable(`the discovery document's issuer ${server.issuer} is not issuer_url ${issuer}`);
  }
  // client_secret_basic is OIDC's default; a provider that lists only client_secret_post gets that.
  const methods = server.token_endpoint_auth_methods_supported;
  const auth = methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post') ? client.ClientSecretPost(provider.client_secret) : client.ClientSecretBasic(provider.client_secret);
  const chosen = new client.Configuration(server, provider.client_id, metadata, auth);
  chosen.timeout = OUTBOUND_TIMEOUT_S;
  if (url.protocol === 'http:') client.allowInsecureRequests(chosen);
  return chosen;
}

/** The session's metadata from the identity's claims (the ID token's over userinfo's). */
function sessionMetadata(provider: string, claims: Record<string, unknown>, groupsClaim: string): Record<string, string> {
  const metadata: Record<string, string> = { [OIDC_METADATA.provider]: provider };
  const set = (key: string, value: unknown) => {
    if (typeof value === 'string' && value !== '') metadata[key] = value;
  };
  set(OIDC_METADATA.email, claims.email);
  if (typeof claims.email_verified === 'boolean') metadata[OIDC_METADATA.emailVerified] = String(claims.email_verified);
  set(OIDC_METADATA.name, claims.name);
  set(OIDC_METADATA.picture, claims.picture);
  set(OIDC_METADATA.sub, claims.sub);
  metadata[PENNON_METADATA.groups] = JSON.stringify(stringList(claims[groupsClaim]));
  metadata[PENNON_METADATA.claims] = boundedClaims(claims);
  return metadata;
}

const describe = (text: string | null) => (text ? ` (${text})` : '');

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET']);

/**
 * A request to the provider, its failure as Pennon's: the provider unreachable, slow or failing
 * (5xx) → 503 (unavailable); a refusal (an OAuth error, an ID token that fails a check) → 401.
 */
async function outbound<T>(provider: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (err) {
    if (err instanceof PennonError) throw err;
    if (isProviderDown(err)) throw unavailable(`OIDC provider "${provider}" is unavailable: ${reason(err)}`, err);
    if (err instanceof client.ResponseBodyError) throw unauthenticated(`the provider refused the sign-in: ${err.error}${describe(err.error_description ?? null)}`);
    if (err instanceof client.AuthorizationResponseError) throw unauthenticated(`the provider refused the sign-in: ${err.error}${describe(err.error_description ?? null)}`);
    throw unauthenticated(`the sign-in was refused: ${reason(err)}`);
  }
}

function isProviderDown(err: unknown): boolean {
  for (let cause = err, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT' || cause.name === 'TimeoutError' || cause.name === 'AbortError') return true;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (cause instanceof TypeError && cause.message === 'fetch failed') return true;
    // openid-client names a non-2xx answer's Response as the cause.
    const response = (cause as { cause?: unknown }).cause;
    if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' && response instanceof Response && response.status >= 500) return true;
  }
  return false;
}

function reason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}
