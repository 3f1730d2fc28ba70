export { AuthService, startCleanup, type CreateTokenRequest, type CreatedToken } from './service';
export { Authenticator, type SharedAuthCache } from './authenticator';
export { generateToken, hashToken, TOKEN_METADATA } from './tokens';
