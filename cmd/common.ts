import { extname } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import type { Config } from '../internal/config';

/** Exit codes shared by every command. */
export const EXIT = { OK: 0, FAILURE: 1, USAGE: 2 } as const;

export interface GlobalOptions {
  config?: string;
  verbose?: boolean;
}

/**
 * Loads the configuration a command was pointed at (the --config file or PENNON_CONFIG, else the
 * first of Flipt's and Pennon's default locations that exists; then FLIPT_* and PENNON_* vars).
 * `path` is the file read, or null (defaults and the environment only).
 * Commands import the service's modules only when they run (dynamic imports): `--help` and
 * `--version` stay instant, and each command loads only what it uses.
 */
export async function configFrom(options: GlobalOptions): Promise<{ config: Config; warnings: string[]; path: string | null }> {
  const { findConfigFile, loadConfig } = await import('../internal/config');
  const path = options.config ?? process.env.PENNON_CONFIG ?? findConfigFile();
  return { ...loadConfig({ path }), path: path ?? null };
}

/**
 * `--address`: checked while the arguments are read, so a malformed one is a usage error
 * (exit 2) like any other. `localhost:8080` parses as a URL whose scheme is `localhost:`.
 */
export function addressOption(what: string): Option {
  return new Option('-a, --address <url>', what).argParser((value: string) => {
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      // reported below
    }
    if (url?.protocol === 'http:' || url?.protocol === 'https:') return value;
    const bare = /^[\w.-]+(:\d+)?(\/.*)?$/.test(value) ? ` (did you mean http://${value}?)` : '';
    throw new InvalidArgumentError(`"${value}" is not an http:// or https:// URL${bare}`);
  });
}

/** `-o FILE`: the extension says the encoding, so one we do not write is refused up front. */
export function outputFileOption(): Option {
  return new Option('-o, --output <file>', 'write to a file (.yml, .yaml or .json) instead of stdout').argParser((value: string) => {
    if (!['.yml', '.yaml', '.json'].includes(extname(value).toLowerCase())) {
      throw new InvalidArgumentError(`"${value}" does not end in .yml, .yaml or .json, which say what to write`);
    }
    return value;
  });
}

interface ApiErrorLike {
  name: string;
  status: number;
  code?: string;
  address?: string;
}

function apiErrorIn(err: unknown): ApiErrorLike | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === 'ApiError') return e as unknown as ApiErrorLike;
  }
  return null;
}

/** The one-line hints for the failures people meet most, or null. */
export function commonHint(err: unknown): string | null {
  const api = apiErrorIn(err);
  if (api?.status === 0 && api.code === 'ECONNREFUSED') return `is a Pennon (or Flipt) server running at ${api.address}?`;
  if (api?.status === 401) return 'pass --token with a client token the server accepts (`pennon token create` makes one)';
  return null;
}

/**
 * Reports a failure as one line on stderr (every problem of a bad config on its own line, a
 * parse error's excerpt under it) and sets the exit code; a common failure gets one more line,
 * a hint (`hint` adds the command's own). Stack traces only with --verbose or
 * PENNON_LOG_LEVEL=debug.
 */
export function fail(err: unknown, options: GlobalOptions = {}, hint: (err: unknown) => string | null = () => null): never {
  const verbose = options.verbose || process.env.PENNON_LOG_LEVEL?.toLowerCase() === 'debug';
  if (err instanceof Error && err.name === 'ConfigError') {
    process.stderr.write(`pennon: ${err.message}\n`);
  } else if (err instanceof Error) {
    process.stderr.write(`pennon: ${verbose && err.stack ? err.stack : err.message}\n`);
  } else {
    process.stderr.write(`pennon: ${String(err)}\n`);
  }
  const said = hint(err) ?? commonHint(err);
  if (said) process.stderr.write(`hint: ${said}\n`);
  process.exit(EXIT.FAILURE);
}
