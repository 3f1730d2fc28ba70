import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The per-user data directory: $XDG_DATA_HOME/pennon, else ~/.local/share/pennon. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME && env.XDG_DATA_HOME !== '' ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(base, 'pennon');
}

export function defaultDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return `file:${join(defaultDataDir(env), 'pennon.db')}`;
}

/**
 * Where a configuration file is looked for when none is given (--config, PENNON_CONFIG): Flipt's
 * locations in Flipt's order — its per-user file, then /etc/flipt/config/default.yml — so that a
 * Flipt deployment's file is found where Flipt found it; then Pennon's own. The per-user
 * directory is Go's os.UserConfigDir(): $XDG_CONFIG_HOME, else ~/.config.
 */
export function configFileCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const userConfig = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return [join(userConfig, 'flipt', 'config.yml'), '/etc/flipt/config/default.yml', join(userConfig, 'pennon', 'config.yml'), '/etc/pennon/config.yml'];
}

/** The first candidate that exists, if any. */
export function findConfigFile(env: NodeJS.ProcessEnv = process.env, exists: (path: string) => boolean = existsSync): string | undefined {
  return configFileCandidates(env).find((path) => exists(path));
}
