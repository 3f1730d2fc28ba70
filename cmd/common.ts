import type { Config } from '../internal/config';

/** Exit codes shared by every command. */
export const EXIT = { OK: 0, FAILURE: 1, USAGE: 2 } as const;

export interface GlobalOptions {
  config?: string;
  verbose?: boolean;
}

/**
 * Loads the configuration a command was pointed at (the --config file, then PENNON_* vars).
 * Commands import the service's modules only when they run (dynamic imports): `--help` and
 * `--version` stay instant, and each command loads only what it uses.
 */
export async function configFrom(options: GlobalOptions): Promise<{ config: Config; warnings: string[] }> {
  const { loadConfig } = await import('../internal/config');
  return loadConfig({ path: options.config ?? process.env.PENNON_CONFIG });
}

/**
 * Reports a failure as one line on stderr (every problem of a bad config on its own line) and
 * sets the exit code. Stack traces only with --verbose or PENNON_LOG_LEVEL=debug.
 */
export function fail(err: unknown, options: GlobalOptions = {}): never {
  const verbose = options.verbose || process.env.PENNON_LOG_LEVEL?.toLowerCase() === 'debug';
  if (err instanceof Error && err.name === 'ConfigError') {
    process.stderr.write(`pennon: ${err.message}\n`);
  } else if (err instanceof Error) {
    process.stderr.write(`pennon: ${verbose && err.stack ? err.stack : err.message}\n`);
  } else {
    process.stderr.write(`pennon: ${String(err)}\n`);
  }
  process.exit(EXIT.FAILURE);
}
