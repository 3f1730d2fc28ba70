export { loadConfig, ConfigError, type LoadOptions, type LoadResult } from './load';
export { configSchema, type Config, type LogConfig, type ServerConfig, type DbConfig, type AuthenticationConfig, type StorageConfig, type CacheConfig, type MetricsConfig, type TracingConfig, type CorsConfig, type UiConfig, type StreamsConfig, type GitStorageConfig, type CredentialConfig, type EnvironmentConfig } from './schema';
export { type AuditConfig } from './audit';
export { ROLES, type Role, type RoleBinding, type AuthorizationConfig, type SessionConfig, type AuthRateLimitConfig } from './sign-in';
export { gitStoragesOf, normaliseDirectory, remoteWithoutUserInfo } from './git';
export { parseDuration, formatDuration } from './duration';
export { configFileCandidates, defaultDataDir, defaultDatabaseUrl, findConfigFile } from './paths';
export { redactedConfig, REDACTED } from './redact';
export { publicConfig } from './public';
