import type { Config, GitStorageConfig } from './schema';

/**
 * Flipt v2's Git configuration, checked across keys once the schema has parsed it: what an
 * environment or storage names must exist, so a typo stops the service at start with the key
 * in the message instead of surfacing as an empty environment later.
 */

/** A remote URL without any user:password in it, for logs and listings. */
export function remoteWithoutUserInfo(remote: string): string {
  try {
    const url = new URL(remote);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return remote;
  }
}

/** `storage` keys that are Flipt v1's settings, not Git storages. */
const V1_STORAGE_KEYS = new Set(['type', 'read_only']);

/** The named Git storages of `storage` (every key but `type` and `read_only`). */
export function gitStoragesOf(storage: Config['storage']): Map<string, GitStorageConfig> {
  const out = new Map<string, GitStorageConfig>();
  for (const [key, value] of Object.entries(storage)) {
    if (!V1_STORAGE_KEYS.has(key)) out.set(key, value as GitStorageConfig);
  }
  return out;
}

/** Defaults that depend on the key (an environment's name), then the cross-key rules. */
export function gitChecks(config: Config): string[] {
  const problems: string[] = [];
  const storages = gitStoragesOf(config.storage);

  for (const [key, cred] of Object.entries(config.credentials)) {
    const at = `credentials.${key}`;
    const hasBasic = cred.basic !== undefined;
    const hasToken = cred.access_token !== '';
    const type = cred.type ?? (hasBasic ? 'basic' : hasToken ? 'access_token' : undefined);
    if (type === undefined) problems.push(`${at}: needs basic (username, password) or access_token`);
    else if (type === 'basic' && (!hasBasic || hasToken)) problems.push(`${at}: type basic needs basic.username and basic.password (and no access_token)`);
    else if (type === 'access_token' && (!hasToken || hasBasic)) problems.push(`${at}.access_token: must not be empty for type access_token (and no basic)`);
    if (hasBasic && (cred.basic!.username === '') !== (cred.basic!.password === '')) {
      problems.push(`${at}.basic: username and password go together (both or neither)`);
    }
  }

  for (const [key, s] of storages) {
    const at = `storage.${key}`;
    if (s.poll_interval === 0) s.poll_interval = 30_000; // Flipt: zero means the default
    if (s.poll_interval < 1000) problems.push(`${at}.poll_interval: must be at least 1s`);
    if (s.credentials !== '' && !(s.credentials in config.credentials)) {
      problems.push(`${at}.credentials: credential "${s.credentials}" not found under credentials`);
    }
    if (s.ca_cert_path !== '' && s.ca_cert_bytes !== '') problems.push(`${at}: ca_cert_path and ca_cert_bytes are mutually exclusive`);
    if (s.backend.type === 'local' && s.backend.path === '') s.backend.path = '.';
    if (s.remote === '' && s.backend.type === 'memory') problems.push(`${at}.remote: required with backend.type memory (an empty in-memory repository has no flags)`);
  }

  // Flipt: storages without environments get `environments.default` on `storage.default`.
  if (Object.keys(config.environments).length === 0 && storages.has('default')) {
    config.environments.default = { name: 'default', default: true, storage: 'default', directory: '' };
  } else if (Object.keys(config.environments).length === 0 && storages.size > 0) {
    problems.push(`environments: none configured, and no storage.default for Flipt's default environment to use (storages: ${[...storages.keys()].join(', ')})`);
  }
  const envs = Object.entries(config.environments);
  const placed = new Map<string, string>();
  const names = new Map<string, string>();
  for (const [key, env] of envs) {
    const at = `environments.${key}`;
    if (env.name === '') env.name = key;
    if (!storages.has(env.storage)) problems.push(`${at}.storage: references undefined storage "${env.storage}"`);
    const where = `${env.storage}\u0000${normaliseDirectory(env.directory)}`;
    const other = placed.get(where);
    if (other !== undefined) problems.push(`${at}: environments ${other} and ${key} share the same storage "${env.storage}" and directory "${env.directory}"`);
    else placed.set(where, key);
    const sameName = names.get(env.name);
    if (sameName !== undefined) problems.push(`${at}.name: "${env.name}" is also the name of environments.${sameName}`);
    else names.set(env.name, key);
    const scm = env.scm;
    if (scm?.credentials && !(scm.credentials in config.credentials)) problems.push(`${at}.scm.credentials: credential "${scm.credentials}" not found under credentials`);
    if (scm?.webhook && scm.webhook.secret === '') problems.push(`${at}.scm.webhook.secret: must not be empty`);
  }
  // Flipt: exactly one default; a single environment is the default without saying so.
  const defaults = envs.filter(([, env]) => env.default).map(([key]) => key);
  if (envs.length === 1) envs[0][1].default = true;
  else if (envs.length > 1 && defaults.length !== 1) {
    problems.push(
      defaults.length === 0
        ? 'environments: one environment must have default: true'
        : `environments: only one environment may have default: true (${defaults.join(', ')} do)`,
    );
  }
  return problems;
}

/** `a/`, `./a` and `a` are the same directory. */
export function normaliseDirectory(directory: string): string {
  return directory
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}
