import type { z } from 'zod';
import { unwrap } from './env';
import { configSchema, SECRET_SCHEMAS, type Config } from './schema';

/**
 * The configuration with every secret (database URL and password, bootstrap token, …)
 * replaced, for `pennon config validate --json` and `/meta/config`. Secrets are marked in the
 * schema, so a new secret key cannot be forgotten here.
 */
export const REDACTED = '[redacted]';

/** Whether a schema (or one it wraps: default, optional, pipe) carries a mark such as "secret". */
export function marked(set: WeakSet<z.ZodType>, schema: z.ZodType): boolean {
  let s: z.ZodType | undefined = schema;
  for (let i = 0; s && i < 6; i++) {
    if (set.has(s)) return true;
    const inner: { innerType?: z.ZodType; in?: z.ZodType } = (s as unknown as { def: { innerType?: z.ZodType; in?: z.ZodType } }).def;
    s = inner.innerType ?? inner.in;
  }
  return false;
}

function walk(schema: z.ZodType, value: unknown): unknown {
  if (marked(SECRET_SCHEMAS, schema)) return value === '' || value === undefined ? value : REDACTED;
  const def = (unwrap(schema) as unknown as { def: { type: string; shape?: Record<string, z.ZodType>; valueType?: z.ZodType; catchall?: z.ZodType } }).def;
  if (def.type === 'object' && def.shape && value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, def.shape![k] ? walk(def.shape![k], v) : def.catchall ? walk(def.catchall, v) : v]));
  }
  if (def.type === 'record' && def.valueType && value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(def.valueType!, v)]));
  }
  return value;
}

export function redactedConfig(config: Config): unknown {
  return walk(configSchema, config);
}
