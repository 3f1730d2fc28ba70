import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '../../../../internal/core/json-depth';

/**
 * fast-check arbitraries for hostile HTTP requests: path segments, query strings (the paging
 * values among them), bodies and headers. Nothing here knows the routes; fuzz-case.ts puts
 * these together over the templates the app reports.
 */

/** A path segment as sent (already percent-encoded, or deliberately badly). */
export function hostileSegment(taken: ReadonlySet<string>): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.constantFrom(
        '%ZZ', '%', '%E0%A4%A', '%FF%FE', '%C0%AF', '%ED%A0%80', '%00', '%2F', 'a%2Fb', '%5C', '%0D%0Aset-cookie:x', '%25',
        '__proto__', 'constructor', 'hasOwnProperty', 'toString', 'order', '%F0%9F%92%A5', '%E2%80%AE', "'%3B--", 'null', '-1', 'NaN',
      ),
      fc.constantFrom(256, 501, 2000).map((n) => 'k'.repeat(n)),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 24 }).map(encodeSegment),
      fc.string({ minLength: 1, maxLength: 24 }).map((s) => encodeSegment(s)),
    )
    .filter((s) => s !== '' && s !== '.' && s !== '..' && s !== '%2E' && !taken.has(safeDecode(s)));
}

/** encodeURIComponent, except that a lone surrogate becomes its (invalid) UTF-8 bytes. */
export function encodeSegment(s: string): string {
  return Array.from(s, (ch) => {
    try {
      return encodeURIComponent(ch);
    } catch {
      return '%ED%A0%80';
    }
  }).join('');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Values no 32-bit integer field accepts. */
const BAD_INTEGERS = ['abc', '1.5', '-0.5', '1e3', '0x10', '99999999999', '2147483648', 'NaN', 'Infinity', '%20', '%00', '1,2', '-1', '9'.repeat(300)];
const b64 = (s: string) => encodeURIComponent(Buffer.from(s).toString('base64'));
const BAD_TOKENS = [
  b64('{"offset":1e300}'),
  b64('{"offset":99999999999999999999}'),
  b64('{"offset":-1}'),
  b64('{"offset":1.5}'),
  b64('not json'),
  b64('null'),
  '99999999999999999999999',
  '%25%25%25',
  '!!!!',
  'eyJvZmZzZXQiOjF9====',
];

export interface QueryPart {
  text: string;
  /** The paging parameter this part gives a value no list route may accept. */
  badPaging?: 'limit' | 'offset' | 'pageToken';
  /** A parameter some route reads (its odd value may be refused first). */
  known?: boolean;
}

/** Paging parameters: good ones, or exactly one bad one (with `limit=1`, which Flipt requires beside offset and pageToken). */
export const pagingPart: fc.Arbitrary<QueryPart> = fc.oneof(
  fc.constantFrom('limit=1', 'limit=2&offset=1', 'limit=2147483647', 'limit=0&offset=0&pageToken=', `limit=1&pageToken=${b64('{"offset":1}')}`).map((text) => ({ text })),
  fc.constantFrom(...BAD_INTEGERS).map((v): QueryPart => ({ text: `limit=${v}`, badPaging: 'limit' })),
  fc.constantFrom(...BAD_INTEGERS).map((v): QueryPart => ({ text: `limit=1&offset=${v}`, badPaging: 'offset' })),
  fc.constantFrom(...BAD_TOKENS).map((v): QueryPart => ({ text: `limit=1&pageToken=${v}`, badPaging: 'pageToken' })),
);

/** Other query parameters: unknown names, prototype names, known fields with odd values, broken encodings. */
export const noisePart: fc.Arbitrary<QueryPart> = fc.oneof(
  fc
    .constantFrom('__proto__=1', '__proto__[x]=1', 'constructor[prototype][a]=1', 'hasOwnProperty=1', 'x=%ZZ', 'a=%FF%FE', 'a[b][c][d]=1', `${'a['.repeat(200)}=1`)
    .map((text) => ({ text })),
  fc
    .tuple(fc.constantFrom('force', 'variantId', 'service', 'method', 'expiresAt', 'reference', 'pretty', 'key'), fc.string({ unit: 'binary', maxLength: 12 }))
    .map(([name, value]) => ({ text: `${name}=${encodeSegment(value)}`, known: true })),
);

/** Any JSON value, deep or wide, within the nesting limit. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 6 });

/** JSON text nested `depth` levels (arrays, objects or both). */
export function nestedText(depth: number, shape: 'arrays' | 'objects' | 'mixed'): string {
  if (shape === 'arrays') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  if (shape === 'objects') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const half = Math.floor(depth / 2);
  return `${'{"a":['.repeat(half)}${depth % 2 === 1 ? '{}' : 'null'}${']}'.repeat(half)}`;
}

/** The request fields of Flipt's API, in both spellings, so that random objects reach the decoders. */
const FIELDS = [
  'key', 'name', 'description', 'enabled', 'type', 'metadata', 'attachment', 'variantId', 'variant_id', 'rollout', 'segmentKey', 'segment_key',
  'segmentKeys', 'segmentOperator', 'rank', 'matchType', 'property', 'operator', 'value', 'ruleIds', 'rolloutIds', 'threshold', 'segment',
  'percentage', 'flagKey', 'flag_key', 'entityId', 'context', 'requests', 'requestId', 'expiresAt', 'defaultVariantId', 'namespaceKey', 'reference',
];

/** A value for a field: of the right type or not, empty, huge (up to 300 KB), or nested to the limit. */
const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: anyJson, weight: 6 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 4 },
  { arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 1, 1e308, 100, 50, true, false, null, '', [], {}), weight: 4 },
  { arbitrary: fc.constantFrom('VARIANT_FLAG_TYPE', 'BOOLEAN_FLAG_TYPE', 'ALL_MATCH_TYPE', 'AND_SEGMENT_OPERATOR', 'STRING_COMPARISON_TYPE', 'eq', 'isoneof', '["a"]'), weight: 3 },
  { arbitrary: fc.integer({ min: 10_000, max: 300_000 }).map((n) => 'x'.repeat(n)), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: MAX_JSON_DEPTH - 3 }).map((d) => JSON.parse(nestedText(d, 'mixed')) as unknown), weight: 1 },
  { arbitrary: fc.integer({ min: MAX_JSON_DEPTH - 3, max: 10_000 }).map((d) => nestedText(d, 'arrays')), weight: 1 },
);

export interface Body {
  kind: string;
  bytes: Buffer;
  /** True when the body parser must refuse it, whatever the route (the request must get a 4xx). */
  refused: boolean;
}

const text = (kind: string, refused: boolean) => (s: string): Body => ({ kind, bytes: Buffer.from(s, 'utf8'), refused });

/**
 * An object of known (and unknown) fields with values of any type. `namespaceKey` is never
 * `protectedNs`, so that a request meant for another namespace cannot write to it.
 */
export function objectBody(protectedNs: string): fc.Arbitrary<Body> {
  const name = fc.oneof({ arbitrary: fc.constantFrom(...FIELDS), weight: 5 }, { arbitrary: fc.string({ maxLength: 8 }), weight: 1 });
  return fc
    .dictionary(name, fieldValue, { maxKeys: 8 })
    .map((object) => (object.namespaceKey === protectedNs ? { ...object, namespaceKey: 'sandbox' } : object))
    .map((object) => text('object', false)(JSON.stringify(object)));
}

/** Bodies the JSON body parser refuses on every route: too deep, not JSON, prototype keys, too large. */
export function refusedBody(bodyLimit: number): fc.Arbitrary<Body> {
  return fc.oneof(
    { arbitrary: fc.tuple(fc.integer({ min: MAX_JSON_DEPTH + 1, max: 100_000 }), fc.constantFrom('arrays', 'objects', 'mixed') as fc.Arbitrary<'arrays' | 'objects' | 'mixed'>).map(([d, shape]) => `{"key":"k","metadata":${nestedText(d, shape)}}`).map(text('too deep', true)), weight: 4 },
    { arbitrary: fc.json().filter((s) => s.length > 2).chain((s) => fc.integer({ min: 1, max: s.length - 1 }).map((n) => s.slice(0, n))).filter(notJson).map(text('truncated JSON', true)), weight: 3 },
    { arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b) => Buffer.from(b)).filter((b) => notJson(b.toString('utf8'))).map((bytes) => ({ kind: 'random bytes', bytes, refused: true })), weight: 2 },
    { arbitrary: fc.constantFrom('{"__proto__":{"admin":true},"key":"k"}', '{"constructor":{"prototype":{"admin":true}}}', '{"name":{"__proto__":{"x":1}}}').map(text('prototype keys', true)), weight: 2 },
    { arbitrary: fc.constant(`{"key":"big","name":"${'x'.repeat(bodyLimit)}"}`).map(text('too large', true)), weight: 1 },
  );
}

function notJson(s: string): boolean {
  if (s.trim() === '') return false; // an empty body is an empty message
  try {
    JSON.parse(s);
    return false;
  } catch {
    return true;
  }
}

/** Any body: one the parser refuses, an object of fields, or any JSON at all (arrays and scalars too). */
export function anyBody(protectedNs: string, bodyLimit: number): fc.Arbitrary<Body> {
  return fc.oneof(
    { arbitrary: refusedBody(bodyLimit), weight: 3 },
    { arbitrary: objectBody(protectedNs), weight: 5 },
    { arbitrary: anyJson.map((v) => text('any JSON', false)(JSON.stringify(v))), weight: 2 },
    { arbitrary: fc.constant(text('empty', false)('')), weight: 1 },
  );
}

/** Headers a client may send: odd content types, gzip, an OFREP namespace, garbage credentials and validators. */
export const anyHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'content-type': fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', '*/*', ';;;'),
    'accept-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'gzip;q=0, *;q=0'),
    'x-flipt-namespace': fc.constantFrom('sandbox', 'default', 'nope', '%00', ''),
    'x-flipt-environment': fc.constantFrom('nope', 'production', ''),
    'if-none-match': fc.constantFrom('*', '"x"', 'W/"1"'),
    authorization: fc.constantFrom('Bearer nope', 'Basic Zm9vOmJhcg==', 'Bearer', ''),
    accept: fc.constantFrom('application/json+pretty', 'text/html', '*/*'),
  },
  { requiredKeys: [] },
);
