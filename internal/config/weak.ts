import type { z } from 'zod';
import { defOf, goBool, isPlainObject as isTree, unwrap } from './env';

/**
 * Values of a configuration file converted to the types the schema expects, as Flipt's loader
 * converts them (viper decodes with mapstructure's weakly typed input): "8080" is a port, "true"
 * or "1" a boolean, a number or boolean where text is expected its text, "a b" a list of two.
 * What does not convert is left as it is, for the schema to report with the key's name.
 */
export function weaklyTyped(schema: z.ZodType, value: unknown): unknown {
  const def = defOf(unwrap(schema));
  switch (def.type) {
    case 'object': {
      if (!isTree(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) {
        const childSchema = def.shape?.[key] ?? (def.catchall && defOf(def.catchall).type !== 'never' ? def.catchall : undefined);
        out[key] = childSchema ? weaklyTyped(childSchema, child) : child;
      }
      return out;
    }
    case 'record':
      return isTree(value) && def.valueType ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, weaklyTyped(def.valueType as z.ZodType, v)])) : value;
    case 'number':
      if (typeof value === 'string' && /^\s*[-+]?(\d+(\.\d+)?|0x[0-9a-f]+)\s*$/i.test(value)) return Number(value.trim());
      if (typeof value === 'boolean') return value ? 1 : 0;
      return value;
    case 'boolean':
      if (typeof value === 'string') return goBool(value) ?? value;
      if (typeof value === 'number') return value !== 0;
      return value;
    case 'string':
    case 'enum':
      return typeof value === 'number' || typeof value === 'boolean' ? weakText(value) : value;
    case 'array':
      if (typeof value === 'string') return value.split(/\s+/).filter((s) => s !== '');
      return value;
    default:
      return value;
  }
}

/** mapstructure's weak text of a scalar: a boolean is "1" or "0". */
function weakText(value: number | boolean): string {
  return typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
}
