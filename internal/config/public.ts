import type { z } from 'zod';
import { unwrap } from './env';
import { marked } from './redact';
import { configSchema, DURATION_SCHEMAS, SECRET_SCHEMAS, type Config } from './schema';

/**
 * The configuration as Flipt's `GET /meta/config` shows it: Go's JSON field names (camelCase),
 * secrets left out altogether (Flipt tags them `json:"-"`), durations in nanoseconds (Go's
 * time.Duration). Map keys (headers, metadata) are kept as written.
 */
const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const OMIT = Symbol('omit');

const defOf = (schema: z.ZodType): string => (unwrap(schema) as unknown as { def: { type: string } }).def.type;

function walk(schema: z.ZodType, value: unknown): unknown {
  if (marked(SECRET_SCHEMAS, schema)) return OMIT;
  if (marked(DURATION_SCHEMAS, schema)) return typeof value === 'number' ? Math.round(value * 1_000_000) : value;
  const def = (unwrap(schema) as unknown as { def: { type: string; shape?: Record<string, z.ZodType>; valueType?: z.ZodType; catchall?: z.ZodType } }).def;
  if (def.type === 'object' && def.shape && value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const shown = def.shape[k] ? walk(def.shape[k], v) : def.catchall ? walk(def.catchall, v) : v;
      if (shown !== OMIT && shown !== undefined) out[camel(k)] = shown;
    }
    return out;
  }
  // Named entries (credentials.<key>, environments.<key>): keys as written, values walked for secrets.
  if (def.type === 'record' && def.valueType && value && typeof value === 'object' && defOf(def.valueType) === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(def.valueType!, v)]));
  }
  return value;
}

export function publicConfig(config: Config): Record<string, unknown> {
  return walk(configSchema, config) as Record<string, unknown>;
}
