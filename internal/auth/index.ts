export { AuthService, startCleanup, type CreateTokenRequest, type CreatedToken } from './service';
export { Authenticator } from './authenticator';
export { generateToken, hashToken, TOKEN_METADATA } from './tokens';
