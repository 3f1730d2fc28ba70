import { invalid, invalidField } from '../core/errors';
import { parseGoDateTime } from '../core/goparse';

/**
 * Reads request fields the way Flipt's gateway decodes them (protojson): camelCase or
 * snake_case names, protobuf zero values for absent fields, `null` as absent, unknown fields
 * ignored, enums by name or number. A value of the wrong type is a 400 naming the field.
 */

type Source = Record<string, unknown>;

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export class Fields {
  /** `query` sources hold strings (or arrays of them, for repeated parameters). */
  constructor(
    private readonly src: Source,
    private readonly kind: 'body' | 'query',
    private readonly prefix = '',
  ) {}

  static body(body: unknown): Fields {
    if (body === undefined || body === null) return new Fields({}, 'body');
    if (typeof body !== 'object' || Array.isArray(body)) throw invalid('request body must be a JSON object');
    return new Fields(body as Source, 'body');
  }

  static query(query: unknown): Fields {
    return new Fields((query ?? {}) as Source, 'query');
  }

  private raw(name: string): unknown {
    const alias = snake(name);
    if (alias !== name && Object.hasOwn(this.src, alias) && Object.hasOwn(this.src, name)) {
      // Both spellings of one field: protojson refuses it, and so do we (it would be ambiguous).
      throw invalidField(this.prefix + name, `given twice (${name} and ${alias})`);
    }
    const value = Object.hasOwn(this.src, name) ? this.src[name] : Object.hasOwn(this.src, alias) ? this.src[alias] : undefined;
    // A repeated query parameter: the last one wins, as in grpc-gateway.
    return this.kind === 'query' && Array.isArray(value) ? value[value.length - 1] : value;
  }

  private fail(name: string, expected: string): never {
    throw invalidField(this.prefix + name, `must be ${expected}`);
  }

  has(name: string): boolean {
    const v = this.raw(name);
    return v !== undefined && v !== null;
  }

  str(name: string): string {
    const v = this.raw(name);
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') this.fail(name, 'a string');
    return v;
  }

  bool(name: string): boolean {
    const v = this.raw(name);
    if (v === undefined || v === null) return false;
    if (typeof v === 'boolean') return v;
    if (this.kind === 'query' && typeof v === 'string') {
      if (v === 'true' || v === '1') return true;
      if (v === 'false' || v === '0' || v === '') return false;
    }
    return this.fail(name, 'a boolean');
  }

  int32(name: string): number {
    const v = this.raw(name);
    if (v === undefined || v === null || v === '') return 0;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isInteger(n) || n < INT32_MIN || n > INT32_MAX) this.fail(name, 'a 32-bit integer');
    return n;
  }

  float(name: string): number {
    const v = this.raw(name);
    if (v === undefined || v === null) return 0;
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (!Number.isFinite(n)) this.fail(name, 'a number');
    return n;
  }

  /** An enum by name or by number; absent gives the first (zero) value. */
  enumOf<T extends string>(name: string, values: readonly T[]): T {
    const v = this.raw(name);
    if (v === undefined || v === null || v === '') return values[0];
    if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as T;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
    if (Number.isInteger(n) && n >= 0 && n < values.length) return values[n];
    return this.fail(name, `one of ${values.join(', ')}`);
  }

  strList(name: string): string[] {
    const v = this.raw(name);
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) this.fail(name, 'a list of strings');
    return v as string[];
  }

  /** An RFC 3339 instant (a protobuf Timestamp) as epoch microseconds; absent or '' is null. */
  instant(name: string): number | null {
    const value = this.str(name);
    if (value === '') return null;
    const t = parseGoDateTime(value);
    if (!t || t.dateOnly) throw invalidField(this.prefix + name, `"${value}" is not an RFC 3339 timestamp (example: 2030-01-02T15:04:05Z)`);
    return t.seconds * 1_000_000 + Math.floor(t.nanos / 1000);
  }

  /** A JSON object field (protobuf Struct); undefined when absent. */
  object(name: string): Record<string, unknown> | undefined {
    const v = this.raw(name);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) this.fail(name, 'a JSON object');
    return v as Record<string, unknown>;
  }

  /** A nested message; null when absent. */
  message(name: string): Fields | null {
    const v = this.object(name);
    return v === undefined ? null : new Fields(v, this.kind, `${this.prefix}${name}.`);
  }
}
