import { z } from 'zod';
import { parseDuration } from './duration';

/** The kinds of value the configuration schema marks: secrets and durations. */

/** Schemas whose values must never be shown (logs, /meta/config, `config validate`). */
export const SECRET_SCHEMAS = new WeakSet<z.ZodType>();
export function secret<T extends z.ZodType>(schema: T): T {
  SECRET_SCHEMAS.add(schema);
  return schema;
}

/** Durations (milliseconds once parsed), for /meta/config which shows them as Go does (nanoseconds). */
export const DURATION_SCHEMAS = new WeakSet<z.ZodType>();

/** A Go duration string ("30s", "1h") or a number of milliseconds → milliseconds. */
export const duration = (fallback: string) => {
  const schema = z
    .union([z.string(), z.number()])
    .default(fallback)
    .transform((value, ctx) => {
      const ms = typeof value === 'number' ? value : parseDuration(value);
      if (ms === null || ms < 0 || !Number.isFinite(ms)) {
        ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration (examples: 500ms, 30s, 1h)` });
        return z.NEVER;
      }
      return ms;
    });
  DURATION_SCHEMAS.add(schema);
  return schema;
};

