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
