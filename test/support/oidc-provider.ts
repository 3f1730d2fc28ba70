import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID Provider on 127.0.0.1 (oidc-provider, panva's certified implementation) for the
 * sign-in tests: two confidential clients for Pennon — `pennon` (PKCE optional) and
 * `pennon-pkce` (PKCE required, so a sign-in without it fails at the provider) — and the users
 * below. Its development interactions (a login form taking any password, then a consent form)
 * are what a test drives, over HTTP or in Chromium.
 */

export interface TestUser {
  email: string;
  email_verified: boolean;
  name: string;
  groups: string[];
}

export const USERS: Record<string, TestUser> = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Example', groups: ['flag-admins', 'developers'] },
  mallory: { email: 'mallory@elsewhere.test', email_verified: false, name: 'Mallory', groups: [] },
};

export const CLIENT = { id: 'pennon', secret: 'pennon-client-secret' };
export const PKCE_CLIENT = { id: 'pennon-pkce', secret: 'pennon-pkce-client-secret' };

export interface TestProvider {
  issuer: string;
  close(): Promise<void>;
}

/** Starts the provider (on `port`, or one of the system's choosing); `redirectUris` are the callbacks its clients may be sent back to. */
export async function startOidcProvider(redirectUris: string[], port = 0): Promise<TestProvider> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server: Server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = (c: { id: string; secret: string }) => ({
    client_id: c.id,
    client_secret: c.secret,
    redirect_uris: redirectUris,
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  const provider = new Provider(issuer, {
    clients: [client(CLIENT), client(PKCE_CLIENT)],
    async findAccount(_ctx, id) {
      const user = USERS[id];
      if (!user) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...user }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    // The claims of the scopes granted go in the ID token too (as Keycloak's mappers put them there).
    conformIdTokenClaims: false,
    pkce: { required: (_ctx, c) => c.clientId === PKCE_CLIENT.id },
    // Plain http on loopback: SameSite=None cookies would need Secure, which Chromium insists on.
    cookies: { keys: ['test-cookie-key'], long: { httpOnly: true, sameSite: 'lax' }, short: { httpOnly: true, sameSite: 'lax' } },
    features: { devInteractions: { enabled: true } },
    // Lifetimes given (seconds), so the provider does not remark on its defaults.
    ttl: { AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
  });
  // The provider's own console warnings (development keys, dev interactions) are expected here.
  provider.on('server_error', () => undefined);
  handle = provider.callback();
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
