import { auditChecks } from './audit';
import { existsSync, readFileSync } from 'node:fs';
import { CORE_SCHEMA, load, YAMLException } from 'js-yaml';
import type { z } from 'zod';
import { deepMerge, envTree, FLIPT_ENV_PREFIX } from './env';
import { fliptOnlyVariable, readFliptConfiguration } from './flipt-compat';
import { gitChecks } from './git';
import { resolveReferences } from './references';
import { defaultDatabaseUrl } from './paths';
import { configSchema, type Config } from './schema';
import { signInChecks } from './sign-in-checks';
import { weaklyTyped } from './weak';

/** Every problem found in a configuration, each naming its key. */
export class ConfigError extends Error {
  readonly problems: string[];

  constructor(problems: string[], source: string) {
    super(`invalid configuration (${source}):\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface LoadOptions {
  /** Path of a YAML file; without one, defaults (and the environment) apply. */
  path?: string;
  env?: NodeJS.ProcessEnv;
  /** Whether stdout is a terminal (decides the default log encoding). */
  isTTY?: boolean;
}

export interface LoadResult {
  config: Config;
  /** Not fatal: e.g. PENNON_ variables that name no key. */
  warnings: string[];
}

export function loadConfig(options: LoadOptions = {}): LoadResult {
  const env = options.env ?? process.env;
  const source = options.path ?? 'defaults and environment';
  const problems: string[] = [];
  const fileTree = options.path ? readYaml(options.path, problems) : {};
  // A Flipt deployment's FLIPT_* variables are read as Flipt reads them; PENNON_* win over them.
  const flipt = envTree(configSchema, env, FLIPT_ENV_PREFIX);
  const pennon = envTree(configSchema, env);
  const sources = new Map([...flipt.sources, ...pennon.sources]);
  const fromEnv = deepMerge(flipt.tree, pennon.tree);
  // References first (Flipt substitutes `${VAR}` before converting), then Flipt's keys and values
  // Pennon does not have set aside, then values converted as Flipt's weakly typed decoding does.
  const fromFlipt = readFliptConfiguration(resolveReferences(deepMerge(fileTree, fromEnv), env, problems));
  const merged = weaklyTyped(configSchema, fromFlipt.tree);

  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) problems.push(...parsed.error.issues.flatMap((issue) => describeIssue(issue, sources)));
  if (problems.length > 0) throw new ConfigError(problems, source);

  const config = parsed.data as Config;
  const warnings = [...fromFlipt.warnings];
  problems.push(...crossChecks(config));
  if (problems.length > 0) throw new ConfigError(problems, source);
  if (config.db.url === '' && config.db.protocol === '') config.db.url = defaultDatabaseUrl(env);
  config.log.encoding ??= (options.isTTY ?? process.stdout.isTTY) ? 'console' : 'json';
  warnings.push(
    ...[...flipt.sources].flatMap(([key, fliptName]) => {
      const pennonName = pennon.sources.get(key);
      return pennonName ? [`${pennonName} and ${fliptName} both set ${key}: ${pennonName} is used`] : [];
    }),
    ...flipt.unknown.map((name) => fliptOnlyVariable(name) ?? `environment variable ${name} names no configuration key of Pennon's or Flipt's; ignored`),
    ...pennon.unknown.map((name) => `environment variable ${name} names no configuration key; ignored`),
  );
  return { config, warnings };
}

/** Rules that span keys. */
function crossChecks(config: Config): string[] {
  return [...signInChecks(config.authentication, config.authorization), ...gitChecks(config), ...httpsChecks(config), ...auditChecks(config.audit)];
}

function readYaml(path: string, problems: string[]): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    return {};
  }
  let value: unknown;
  try {
    // The YAML 1.2 core schema: js-yaml's default would read dates as Date objects and `<<` as a merge.
    value = load(text, { schema: CORE_SCHEMA });
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    problems.push(`${path}: ${err.reason}${err.mark ? ` at line ${err.mark.line + 1}, column ${err.mark.column + 1}` : ''}`);
    return {};
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`${path}: the top level must be a mapping of sections`);
    return {};
  }
  return value;
}

function describeIssue(issue: z.core.$ZodIssue, sources: Map<string, string>): string[] {
  const at = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${at ? `${at}.` : ''}${key}: unknown key`);
  }
  const message = issue.message.replace(/^Invalid input: /, '').replace(/^Invalid option: /, '');
  const from = sources.get(at);
  return [`${at || '(top level)'}${from ? ` (from ${from})` : ''}: ${message}`];
}

/** `protocol: https` needs its certificate and key, readable (Flipt's check, with our words). */
function httpsChecks(config: Config): string[] {
  if (config.server.protocol !== 'https') return [];
  const problems: string[] = [];
  for (const key of ['cert_file', 'cert_key'] as const) {
    const path = config.server[key];
    if (path === '') problems.push(`server.${key}: required when server.protocol is https (a PEM file)`);
    else if (!existsSync(path)) problems.push(`server.${key}: ${path} does not exist`);
  }
  return problems;
}
