import type { z } from 'zod';

/**
 * Maps PENNON_<SECTION>_<KEY> environment variables — and Flipt's FLIPT_<SECTION>_<KEY>, read
 * the same way — onto the configuration tree by walking the schema, so `PENNON_SERVER_HTTP_PORT`
 * finds `server.http_port` although both the separator and the key use underscores. Values are converted to the leaf's type (numbers, booleans,
 * whitespace-separated lists); anything that does not convert is passed on as text so that the
 * schema reports it with the key's name.
 */

export const ENV_PREFIX = 'PENNON_';
/** Flipt's prefix: a Flipt deployment's environment works unchanged (PENNON_ wins where both set a key). */
export const FLIPT_ENV_PREFIX = 'FLIPT_';

/** Variables with a prefix that are not configuration (test settings, the config path). */
const NOT_CONFIG = [/^PENNON_TEST_/, /^PENNON_CONFIG$/];

type Tree = Record<string, unknown>;

export interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  /** An object's schema for keys outside its shape (`storage.<name>`), when it has one. */
  catchall?: z.ZodType;
}

export function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { def: Def }).def;
}

/** Strips defaults, optionals and pipes down to the schema that decides the shape. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if ((def.type === 'default' || def.type === 'prefault' || def.type === 'optional' || def.type === 'nullable') && def.innerType) {
      s = def.innerType;
    } else if (def.type === 'pipe' && def.in) {
      s = def.in;
    } else {
      return s;
    }
  }
}

/** Go's strconv.ParseBool, which Flipt's loader uses: 1, t, T, TRUE, true, True and their false twins. */
export function goBool(raw: string): boolean | null {
  const v = raw.trim();
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return null;
}

function convertLeaf(schema: z.ZodType, raw: string): unknown {
  const def = defOf(unwrap(schema));
  switch (def.type) {
    case 'number':
      return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    case 'boolean':
      return goBool(raw) ?? raw;
    case 'array':
      return raw.split(/\s+/).filter((s) => s !== '');
    default:
      return raw;
  }
}

/** Resolves tokens against the schema: the path of keys, or null when nothing matches. */
function resolve(schema: z.ZodType, tokens: string[]): string[] | null {
  if (tokens.length === 0) return [];
  const node = unwrap(schema);
  const def = defOf(node);
  if (def.type === 'object' && def.shape) {
    // Longest key first, so `http_port` wins over a hypothetical `http`.
    for (let n = tokens.length; n >= 1; n--) {
      const key = tokens.slice(0, n).join('_');
      const child = def.shape[key];
      if (!child) continue;
      const rest = resolve(child, tokens.slice(n));
      if (rest) return [key, ...rest];
    }
    // Named entries beside fixed keys (`storage.<name>`): resolved like a record's.
    if (def.catchall && defOf(def.catchall).type !== 'never') return resolveEntry(def.catchall, tokens);
    return null;
  }
  if (def.type === 'record' && def.valueType) return resolveEntry(def.valueType, tokens);
  return null;
}

/** A map entry: the first tokens are the user's key, the rest a path inside the value. */
function resolveEntry(valueType: z.ZodType, tokens: string[]): string[] | null {
  if (defOf(unwrap(valueType)).type !== 'object') return [tokens.join('_')];
  // Map keys are user names: the shortest key after which the rest still resolves.
  for (let n = 1; n < tokens.length; n++) {
    const rest = resolve(valueType, tokens.slice(n));
    if (rest && rest.length > 0) return [tokens.slice(0, n).join('_'), ...rest];
  }
  return null;
}

function leafAt(schema: z.ZodType, path: string[]): z.ZodType {
  let node = schema;
  for (const key of path) {
    const def = defOf(unwrap(node));
    node = def.type === 'record' ? (def.valueType as z.ZodType) : ((def.shape as Record<string, z.ZodType>)[key] ?? (def.catchall as z.ZodType));
  }
  return node;
}

export interface EnvResult {
  tree: Tree;
  /** Variables with the prefix that name no configuration key. */
  unknown: string[];
  /** Which variable set which key ("server.http_port" → "PENNON_SERVER_HTTP_PORT"). */
  sources: Map<string, string>;
}

export function envTree(schema: z.ZodType, env: NodeJS.ProcessEnv, prefix = ENV_PREFIX): EnvResult {
  const tree: Tree = {};
  const unknown: string[] = [];
  const sources = new Map<string, string>();
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(prefix) || raw === undefined || NOT_CONFIG.some((re) => re.test(name))) continue;
    const tokens = name.slice(prefix.length).toLowerCase().split('_').filter((t) => t !== '');
    const path = resolve(schema, tokens);
    if (!path || path.length === 0) {
      unknown.push(name);
      continue;
    }
    let cursor = tree;
    for (const key of path.slice(0, -1)) {
      if (typeof cursor[key] !== 'object' || cursor[key] === null) cursor[key] = {};
      cursor = cursor[key] as Tree;
    }
    cursor[path[path.length - 1]] = convertLeaf(leafAt(schema, path), raw);
    sources.set(path.join('.'), name);
  }
  return { tree, unknown, sources };
}

/** Deep merge where `over` wins; arrays and scalars are replaced, objects merged. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (isPlainObject(base) && isPlainObject(over)) {
    const out: Tree = { ...base };
    for (const [k, v] of Object.entries(over)) out[k] = k in out ? deepMerge(out[k], v) : v;
    return out;
  }
  return over === undefined ? base : over;
}

/** A mapping of keys (not an array, not null): a configuration section. */
export function isPlainObject(v: unknown): v is Tree {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
