export { AuthService, startCleanup, type CreateTokenRequest, type CreatedToken } from './service';
export { Authenticator, type AuthenticatorOptions, type SharedAuthCache } from './authenticator';
export { generateToken, hashToken, TOKEN_METADATA } from './tokens';
export { SessionService, OIDC_METADATA, GITHUB_METADATA, type CreatedSession } from './sessions';
export { PENNON_METADATA } from './identity-claims';
// The sign-in methods themselves (openid-client, undici) are loaded by the composition root only when enabled.
export type { OidcSignIn } from './oidc';
export type { GithubSignIn } from './github';
export { checkSignInState, encodeSignInState, GITHUB_METHOD, oidcMethodOf, type SignInState } from './sign-in-state';
export { FailedAuthentications, MAX_ADDRESSES, type FailureObserver, type FailureReason } from './failures';
export { JwtVerifier, JWT_ALGORITHMS, JWT_METADATA, CLOCK_TOLERANCE_S } from './jwt';
export { KubernetesExchange, KubernetesVerifier, K8S_METADATA } from './kubernetes';
export { RoleResolver, ROLE_METADATA, ADMIN_EVERYWHERE, NO_GRANTS, grantsToJson, highestRole, holdsAny, isRole, roleOn, stronger, type Grants, type RolesConfig } from './roles';
