import type { IncomingHttpHeaders } from 'node:http';
import { notFound, type AuditEvent, type AuditOrigin, type AuditQuery } from '../core';
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
  /** The management API with its writes recorded in the audit trail as `origin`'s. */
  managementAs(origin: AuditOrigin): Management;
  /** The source's audit trail, newest first: the database's events, or a Git environment's commits. */
  audit(query: AuditQuery): Promise<AuditEvent[]>;
}

export interface FlagSources {
  /** The request's source; throws Flipt's not-found error for an unknown environment. */
  of(headers: IncomingHttpHeaders): FlagSource;
  /**
   * The source an environment's name picks (Flipt v2's `/client/v2/environments/{environment}/…`):
   * without Git environments the database, named `default`; with them the environment so named,
   * or — for `default`, when none is named so — the default one, as Flipt v2 answers SDKs that
   * send `default` whatever the default environment is called. Any other name: Flipt's not-found.
   */
  environment(name: string): FlagSource;
  /** Every environment, the default first ([] without Git environments). */
  environments(): readonly FlagSource[];
  /** True when flag state is read from Git: every write through the API is refused. */
  readonly gitBacked: boolean;
}

const HEADER = 'x-flipt-environment';
/** The name Flipt v2's SDKs send by default; the database's flags answer to it. */
export const DEFAULT_ENVIRONMENT = 'default';

const unknownEnvironment = (name: string) => notFound(`environment "${name}" not found`);

/** One source for every request: the database (Flipt v1 ignores X-Flipt-Environment). */
export function singleSource(source: Omit<FlagSource, 'name'>): FlagSources {
  const only: FlagSource = { name: '', ...source };
  const environment = (name: string) => {
    if (name !== DEFAULT_ENVIRONMENT) throw unknownEnvironment(name);
    return only;
  };
  return { of: () => only, environment, environments: () => [], gitBacked: false };
}

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
      if (!source) throw unknownEnvironment(name);
      return source;
    },
    environment(name) {
      const source = byName.get(name) ?? (name === DEFAULT_ENVIRONMENT ? fallback : undefined);
      if (!source) throw unknownEnvironment(name);
      return source;
    },
    environments: () => ordered,
    gitBacked: true,
  };
}
