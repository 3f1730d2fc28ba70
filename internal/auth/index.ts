export { AuthService, startCleanup, type CreateTokenRequest, type CreatedToken } from './service';
export { Authenticator, type SharedAuthCache } from './authenticator';
export { generateToken, hashToken, TOKEN_METADATA } from './tokens';
export { SessionService, OIDC_METADATA, GITHUB_METADATA, PENNON_METADATA, type CreatedSession } from './sessions';
// The sign-in methods themselves (openid-client, undici) are loaded by the composition root only when enabled.
export type { OidcSignIn } from './oidc';
export type { GithubSignIn } from './github';
export { checkSignInState, encodeSignInState, GITHUB_METHOD, oidcMethodOf, type SignInState } from './sign-in-state';
