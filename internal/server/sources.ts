import type { IncomingHttpHeaders } from 'node:http';
import { notFound } from '../core';
import type { Management } from '../management';
import type { Snapshots } from '../snapshots';

/**
 * Where a request's flag state comes from: the database, or — with Git environments configured
 * (Flipt v2) — the environment named by `X-Flipt-Environment`, the default one without it.
 * Tokens always live in the database; only flags, segments and their rules are selected here.
 */
export interface FlagSource {
  /** The environment's name; '' for the database. */
  name: string;
  snapshots: Snapshots;
  management: Management;
}

export interface FlagSources {
  /** The request's source; throws Flipt's not-found error for an unknown environment. */
  of(headers: IncomingHttpHeaders): FlagSource;
  /** Every environment, the default first ([] without Git environments). */
  environments(): readonly FlagSource[];
  /** True when flag state is read from Git: every write through the API is refused. */
  readonly gitBacked: boolean;
}

/** One source for every request: the database (Flipt v1 ignores X-Flipt-Environment). */
export function singleSource(source: Omit<FlagSource, 'name'>): FlagSources {
  const only: FlagSource = { name: '', ...source };
  return { of: () => only, environments: () => [], gitBacked: false };
}

const HEADER = 'x-flipt-environment';

/** Git environments, picked per request by X-Flipt-Environment (case as configured). */
export function environmentSources(sources: readonly FlagSource[], defaultName: string): FlagSources {
  const byName = new Map(sources.map((s) => [s.name, s]));
  const fallback = byName.get(defaultName);
  if (!fallback) throw new Error(`the default environment "${defaultName}" is not among the environments`);
  const ordered = [fallback, ...sources.filter((s) => s !== fallback)];
  return {
    of(headers) {
      const header = headers[HEADER];
      const name = Array.isArray(header) ? header[0] : header;
      if (name === undefined || name === '') return fallback;
      const source = byName.get(name);
      if (!source) throw notFound(`environment "${name}" not found`);
      return source;
    },
    environments: () => ordered,
    gitBacked: true,
  };
}

/**
 * The source a path names by environment (Flipt v2's `/…/environments/{environment}/…` routes):
 * with the database, only `default`; with Git environments, a configured one. Flipt's not-found
 * error otherwise.
 */
export function sourceNamed(sources: FlagSources, environment: string): FlagSource {
  if (!sources.gitBacked) {
    if (environment === DATABASE_ENVIRONMENT) return sources.of({});
  } else {
    const found = sources.environments().find((s) => s.name === environment);
    if (found) return found;
  }
  throw notFound(`environment "${environment}" not found`);
}

/** The name Flipt v2's environment-scoped paths give the database's flags. */
export const DATABASE_ENVIRONMENT = 'default';
