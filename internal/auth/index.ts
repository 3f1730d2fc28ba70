export { AuthService, startCleanup, type CreateTokenRequest, type CreatedToken } from './service';
export { Authenticator, type AuthenticatorOptions, type SharedAuthCache } from './authenticator';
export { generateToken, hashToken, TOKEN_METADATA } from './tokens';
export { FailedAuthentications, MAX_ADDRESSES, type FailureObserver, type FailureReason } from './failures';
export { JwtVerifier, JWT_ALGORITHMS, JWT_METADATA, PENNON_METADATA, CLOCK_TOLERANCE_S } from './jwt';
export { KubernetesExchange, KubernetesVerifier, K8S_METADATA } from './kubernetes';
