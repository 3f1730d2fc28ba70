import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Flipt v2's references, resolved once at load, before the schema checks the values (so a
 * resolved value is validated like a written one): a string that is exactly `${env:NAME}` is
 * that variable ('' when unset, as in Flipt v2), and `${secret:file:KEY}` is the trimmed text
 * of `<secrets.providers.file.base_path>/KEY`. Flipt v1's `${NAME}` is kept (an unset variable
 * is an error there). Only the file provider exists here (Vault, GCP, AWS and Azure are not
 * supported); a failure names the key and stops the service, as in Flipt.
 */

const V1_ENV = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const V2_ENV = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;
const SECRET = /^\$\{secret:([a-zA-Z0-9_:/-]+)\}$/;

/** Flipt's default file-provider directory. */
export const DEFAULT_SECRETS_PATH = '/etc/flipt/secrets';

interface Context {
  env: NodeJS.ProcessEnv;
  problems: string[];
  basePath: string;
  fileEnabled: boolean;
}

export function resolveReferences(tree: unknown, env: NodeJS.ProcessEnv, problems: string[]): unknown {
  const file = (tree as { secrets?: { providers?: { file?: { base_path?: unknown; enabled?: unknown } } } })?.secrets?.providers?.file;
  const context: Context = {
    env,
    problems,
    basePath: typeof file?.base_path === 'string' && file.base_path !== '' ? file.base_path : DEFAULT_SECRETS_PATH,
    fileEnabled: file?.enabled !== false,
  };
  return walk(tree, context, '');
}

function walk(value: unknown, ctx: Context, path: string): unknown {
  if (typeof value === 'string') return resolveString(value, ctx, path);
  if (Array.isArray(value)) return value.map((v, i) => walk(v, ctx, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, ctx, path ? `${path}.${k}` : k)]));
  }
  return value;
}

function resolveString(value: string, ctx: Context, path: string): string {
  let m = V1_ENV.exec(value);
  if (m) {
    const resolved = ctx.env[m[1]];
    if (resolved === undefined) ctx.problems.push(`${path}: environment variable ${m[1]} is not set`);
    return resolved ?? '';
  }
  m = V2_ENV.exec(value);
  if (m) return ctx.env[m[1]] ?? '';
  m = SECRET.exec(value);
  if (!m) return value;
  const parts = m[1].split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
    ctx.problems.push(`${path}: secret reference "${m[1]}": expected 'provider:key' (e.g. \${secret:file:github-token})`);
    return '';
  }
  const [provider, key] = parts;
  if (provider !== 'file') {
    ctx.problems.push(`${path}: secret provider "${provider}" is not supported (only file)`);
    return '';
  }
  if (!ctx.fileEnabled) {
    ctx.problems.push(`${path}: secret provider file is disabled (secrets.providers.file.enabled)`);
    return '';
  }
  if (key.split('/').includes('..')) {
    ctx.problems.push(`${path}: secret key "${key}" must stay inside ${ctx.basePath}`);
    return '';
  }
  try {
    return readFileSync(join(ctx.basePath, key), 'utf8').trim();
  } catch (err) {
    ctx.problems.push(`${path}: cannot read secret ${join(ctx.basePath, key)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    return '';
  }
}
