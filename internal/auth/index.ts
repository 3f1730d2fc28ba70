export { AuthService, startCleanup, type CreateTokenRequest, type CreatedToken } from './service';
export { Authenticator, type SharedAuthCache } from './authenticator';
export { generateToken, hashToken, TOKEN_METADATA } from './tokens';
export { RoleResolver, ROLE_METADATA, ADMIN_EVERYWHERE, NO_GRANTS, grantsToJson, highestRole, holdsAny, isRole, roleOn, stronger, type Grants, type RolesConfig } from './roles';
