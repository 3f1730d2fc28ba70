import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, startTestServer, type TestServer } from '../../support/server';

/**
 * Malformed requests against every management route of both families (internal/server/routes):
 * wrong JSON types for every field, truncated JSON, random and invalid UTF-8 bytes, arrays and
 * scalars as bodies, `__proto__`/`constructor` keys, bad paging parameters and odd path
 * segments. Whatever arrives, the server answers < 500 with Flipt's error body
 * `{code, message, details}` and no stack, keeps serving, and changes nothing it holds.
 *
 * The generator is seeded: set PENNON_FUZZ_SEED to replay (or explore) another sequence.
 */
const SEED = Number(process.env.PENNON_FUZZ_SEED ?? 0x9e3779b1) >>> 0;
const CASES_PER_ROUTE = 8;

// ---------------------------------------------------------------------------------------------
// Seeded randomness

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  constructor(private readonly random: () => number) {}

  int(maxExclusive: number): number {
    return Math.floor(this.random() * maxExclusive);
  }
  chance(p: number): boolean {
    return this.random() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Any string: plain, unicode, control characters, lone surrogates, or huge (100k chars). */
  string(allowHuge = true): string {
    const kind = this.int(allowHuge ? 7 : 6);
    const len = 1 + this.int(24);
    switch (kind) {
      case 0:
        return Array.from({ length: len }, () => String.fromCharCode(97 + this.int(26))).join('');
      case 1:
        return Array.from({ length: len }, () => String.fromCharCode(this.int(32))).join(''); // control characters
      case 2:
        return this.pick(['\u202e\u0000rtl', 'emoji 💥🚩', 'ñandú', '\ud800lone', 'tab\tnew\nline', '"quoted\'', '<script>', '\\\\back']);
      case 3:
        return this.pick(['', ' ', '__proto__', 'constructor', 'toString', 'null', 'true', '0', '-1', 'NaN']);
      case 4:
        return Array.from({ length: len }, () => String.fromCodePoint(this.int(0x2ffff))).join('');
      case 5:
        return `${this.pick(['%00', '%ZZ', '../', '${x}', '%s%n', "' OR 1=1 --", 'DROP TABLE flags;'])}${this.int(1000)}`;
      default:
        return this.pick(['x', '\u0001', 'é', '💥']).repeat(100_000);
    }
  }

  /** Any JSON value, nested up to `depth`. */
  json(depth = 2): unknown {
    const kind = this.int(depth > 0 ? 9 : 6);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick([0, -1, 1.5, -0, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 1, 1e308, -1e-308, 42]);
      case 3:
      case 4:
        return this.string(false);
      case 5:
        return this.int(1000);
      case 6:
      case 7:
        return Array.from({ length: this.int(4) }, () => this.json(depth - 1));
      default: {
        const out: Record<string, unknown> = {};
        for (let i = this.int(4); i > 0; i--) out[this.pick(['a', 'key', 'name', 'prototype', 'value', this.string(false)])] = this.json(depth - 1);
        return out;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The routes (from internal/server/routes/*.ts) and their request fields

type FieldType = 'string' | 'bool' | 'int' | 'float' | 'enum' | 'strList' | 'object' | { message: Record<string, FieldType> };
type Schema = Record<string, FieldType>;
type Family = 'A' | 'B' | 'N';

interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** With placeholders: {ns} {flag} {bool} {seg} {variant} {rule} {constraint} {distribution} {rollout}. */
  path: string;
  families: Family[];
  body?: Schema;
  list?: boolean;
}

const ROLLOUT_SEGMENT: FieldType = { message: { segmentKey: 'string', segmentKeys: 'strList', segmentOperator: 'enum', value: 'bool' } };
const ROLLOUT_THRESHOLD: FieldType = { message: { percentage: 'float', value: 'bool' } };
const AB: Family[] = ['A', 'B'];

const ROUTES: RouteSpec[] = [
  // Namespaces (Family B only, not below a namespace)
  { method: 'GET', path: '/namespaces', families: ['N'], list: true },
  { method: 'GET', path: '/namespaces/{ns}', families: ['N'] },
  { method: 'POST', path: '/namespaces', families: ['N'], body: { key: 'string', name: 'string', description: 'string' } },
  { method: 'PUT', path: '/namespaces/{ns}', families: ['N'], body: { name: 'string', description: 'string' } },
  { method: 'DELETE', path: '/namespaces/{ns}', families: ['N'] },
  // Flags and variants
  { method: 'GET', path: '/flags', families: AB, list: true },
  { method: 'GET', path: '/flags/{flag}', families: AB },
  {
    method: 'POST',
    path: '/flags',
    families: AB,
    body: { key: 'string', name: 'string', description: 'string', enabled: 'bool', type: 'enum', metadata: 'object' },
  },
  {
    method: 'PUT',
    path: '/flags/{flag}',
    families: AB,
    body: { name: 'string', description: 'string', enabled: 'bool', defaultVariantId: 'string', metadata: 'object' },
  },
  { method: 'DELETE', path: '/flags/{flag}', families: AB },
  { method: 'POST', path: '/flags/{flag}/variants', families: AB, body: { key: 'string', name: 'string', description: 'string', attachment: 'string' } },
  {
    method: 'PUT',
    path: '/flags/{flag}/variants/{variant}',
    families: AB,
    body: { key: 'string', name: 'string', description: 'string', attachment: 'string' },
  },
  { method: 'DELETE', path: '/flags/{flag}/variants/{variant}', families: AB },
  // Segments and constraints
  { method: 'GET', path: '/segments', families: AB, list: true },
  { method: 'GET', path: '/segments/{seg}', families: AB },
  { method: 'POST', path: '/segments', families: AB, body: { key: 'string', name: 'string', description: 'string', matchType: 'enum' } },
  { method: 'PUT', path: '/segments/{seg}', families: AB, body: { name: 'string', description: 'string', matchType: 'enum' } },
  { method: 'DELETE', path: '/segments/{seg}', families: AB },
  {
    method: 'POST',
    path: '/segments/{seg}/constraints',
    families: AB,
    body: { type: 'enum', property: 'string', operator: 'string', value: 'string', description: 'string' },
  },
  {
    method: 'PUT',
    path: '/segments/{seg}/constraints/{constraint}',
    families: AB,
    body: { type: 'enum', property: 'string', operator: 'string', value: 'string', description: 'string' },
  },
  { method: 'DELETE', path: '/segments/{seg}/constraints/{constraint}', families: AB },
  // Rules (incl. order) and distributions
  { method: 'GET', path: '/flags/{flag}/rules', families: AB, list: true },
  { method: 'GET', path: '/flags/{flag}/rules/{rule}', families: AB },
  {
    method: 'POST',
    path: '/flags/{flag}/rules',
    families: AB,
    body: { segmentKey: 'string', segmentKeys: 'strList', segmentOperator: 'enum', rank: 'int' },
  },
  { method: 'PUT', path: '/flags/{flag}/rules/order', families: AB, body: { ruleIds: 'strList' } },
  { method: 'PUT', path: '/flags/{flag}/rules/{rule}', families: AB, body: { segmentKey: 'string', segmentKeys: 'strList', segmentOperator: 'enum' } },
  { method: 'DELETE', path: '/flags/{flag}/rules/{rule}', families: AB },
  { method: 'POST', path: '/flags/{flag}/rules/{rule}/distributions', families: AB, body: { variantId: 'string', rollout: 'float' } },
  {
    method: 'PUT',
    path: '/flags/{flag}/rules/{rule}/distributions/{distribution}',
    families: AB,
    body: { variantId: 'string', rollout: 'float' },
  },
  { method: 'DELETE', path: '/flags/{flag}/rules/{rule}/distributions/{distribution}', families: AB },
  // Rollouts (incl. order), Family B only
  { method: 'GET', path: '/flags/{bool}/rollouts', families: ['B'], list: true },
  { method: 'GET', path: '/flags/{bool}/rollouts/{rollout}', families: ['B'] },
  {
    method: 'POST',
    path: '/flags/{bool}/rollouts',
    families: ['B'],
    body: { rank: 'int', description: 'string', segment: ROLLOUT_SEGMENT, threshold: ROLLOUT_THRESHOLD },
  },
  { method: 'PUT', path: '/flags/{bool}/rollouts/order', families: ['B'], body: { rolloutIds: 'strList' } },
  {
    method: 'PUT',
    path: '/flags/{bool}/rollouts/{rollout}',
    families: ['B'],
    body: { description: 'string', segment: ROLLOUT_SEGMENT, threshold: ROLLOUT_THRESHOLD },
  },
  { method: 'DELETE', path: '/flags/{bool}/rollouts/{rollout}', families: ['B'] },
];

// ---------------------------------------------------------------------------------------------
// Malformed values

/** A value the decoder must refuse for a field of this type (protojson rules, internal/server/wire/decode.ts). */
function wrongValue(g: Gen, type: FieldType): unknown {
  const structural = [[], [1, 'a'], { nested: { deep: [null] } }];
  if (typeof type === 'object') return g.pick([g.string(), 7, true, [], [{}], ...structural.slice(0, 2)]);
  switch (type) {
    case 'string':
      return g.pick([0, -1.5, 1e308, true, false, ...structural, [g.string(false)]]);
    case 'bool':
      return g.pick(['true', 'yes', '', 0, 1, 2.5, ...structural, g.string()]);
    case 'int':
      return g.pick([1.5, -0.5, 'abc', '1e3', '0x10', '', true, 2 ** 31, -(2 ** 31) - 1, 1e20, ...structural, g.string()].filter((v) => v !== ''));
    case 'float':
      return g.pick(['abc', '', ' ', 'Infinity', '-Infinity', 'NaN', true, false, ...structural]);
    case 'enum':
      return g.pick(['NOT_AN_ENUM', 'variant_flag_type', 99, -1, 1.5, true, ...structural, g.string()].filter((v) => v !== ''));
    case 'strList':
      return g.pick(['a', 5, true, {}, [1], [null], ['a', 2], [[]], [{}], [true]]);
    case 'object':
      return g.pick([g.string(), 5, true, false, [], [1, 2], [{}]]);
  }
}

/** A value of the right type (any content: empty, huge, control characters). */
function rightValue(g: Gen, type: FieldType, huge: { left: number }): unknown {
  if (typeof type === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, t] of Object.entries(type.message)) if (g.chance(0.6)) out[k] = rightValue(g, t, huge);
    return out;
  }
  switch (type) {
    case 'string': {
      const s = g.string(huge.left > 0);
      if (s.length > 1000) huge.left -= 1;
      return s;
    }
    case 'bool':
      return g.chance(0.5);
    case 'int':
      return g.pick([0, 1, -1, 2147483647, -2147483648, g.int(100)]);
    case 'float':
      return g.pick([0, 50, 100, -1, 101, 1e-9, 33.33]);
    case 'enum':
      return g.pick([0, 1, 'OR_SEGMENT_OPERATOR', 'ANY_MATCH_TYPE', 'STRING_COMPARISON_TYPE']);
    case 'strList':
      return Array.from({ length: g.int(4) }, () => g.string(false));
    case 'object':
      return g.json(3) ?? {};
  }
}

/**
 * A JSON object body in which at least one field the route reads has the wrong type; with
 * `allWrong`, every field does. The rest may be anything of the right type, plus noise keys.
 */
function wrongBody(g: Gen, schema: Schema, family: Family, allWrong: boolean): Record<string, unknown> {
  const fields: Schema = family === 'A' ? { ...schema, namespaceKey: 'string' } : schema;
  const names = Object.keys(fields);
  const culprit = g.pick(names);
  const huge = { left: 2 };
  const body: Record<string, unknown> = {};
  for (const name of names) {
    const type = fields[name];
    if (name === culprit || allWrong) {
      // Either the field itself is of the wrong type or, for a nested message, one of its fields.
      if (typeof type === 'object' && g.chance(0.5)) {
        const inner = g.pick(Object.keys(type.message));
        body[name] = { ...(rightValue(g, type, huge) as object), [inner]: wrongValue(g, type.message[inner]) };
      } else {
        body[name] = wrongValue(g, type);
      }
    } else if (name === 'namespaceKey' && g.chance(0.5)) {
      body[name] = 'fuzz';
    } else if (g.chance(0.7)) {
      body[name] = rightValue(g, type, huge);
    }
  }
  // Protojson ignores unknown fields; a snake_case spelling of a known one is also read.
  if (g.chance(0.3)) body[g.pick(['unknown', 'extra_field', 'prototype', 'toString'])] = g.json(2);
  return body;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Query strings every list route must refuse with 400. */
const BAD_LIST_QUERIES = [
  'limit=abc',
  'limit=-1',
  'offset=1e99',
  'limit=1&offset=1e99',
  'limit=1&offset=-5',
  'limit=1.5',
  'limit=99999999999',
  'limit=1e3',
  'limit=0x10',
  'limit=%20',
  'limit=1&limit=abc',
  'limit=%E2%88%9E',
  'limit=1&pageToken=%25%25%25',
  'limit=1&pageToken=!!!!',
  `limit=1&pageToken=${encodeURIComponent(b64('not json'))}`,
  `limit=1&pageToken=${encodeURIComponent(b64('{"offset":-1}'))}`,
  `limit=1&pageToken=${encodeURIComponent(b64('{"offset":"x"}'))}`,
  `limit=1&pageToken=${encodeURIComponent(b64('{"offset":1.5}'))}`,
  `limit=1&pageToken=${encodeURIComponent(b64('null'))}`,
  `limit=1&pageToken=${encodeURIComponent(b64('1'))}`,
  `limit=1&pageToken=${encodeURIComponent(b64('{"offset":'))}`,
  'limit=1&pageToken=eyJvZmZzZXQiOjF9====',
  'limit=1&pageToken=%00',
  'limit=1&page_token=%FF%FE',
];
const QUERY_NOISE = ['__proto__=1', '__proto__[x]=1', 'constructor=x', 'constructor[prototype][a]=1', 'hasOwnProperty=1', 'x=%ZZ', 'a=%FF%FE', ''];

/** encodeURIComponent, except that a lone surrogate becomes its (invalid) UTF-8 bytes. */
function encodeSegment(s: string): string {
  return Array.from(s, (ch) => {
    try {
      return encodeURIComponent(ch);
    } catch {
      return '%ED%A0%80';
    }
  }).join('');
}

/**
 * Path segments no seeded object has (never empty or a dot segment, which the URL parser would
 * normalise into another route).
 */
function oddSegment(g: Gen): string {
  switch (g.int(4)) {
    case 0:
      return g.pick([
        '%ZZ',
        '%',
        '%E0%A4%A',
        '%FF%FE',
        '%C0%AF',
        '%ED%A0%80',
        '%00',
        '%2F',
        'a%2Fb',
        '%5C',
        '%0D%0Aset-cookie:x',
        '%25',
        '__proto__',
        'constructor',
        'hasOwnProperty',
        'order',
        '%F0%9F%92%A5',
        '%E2%80%AE',
        "'%3B--",
      ]);
    case 1:
      return 'k'.repeat(g.pick([256, 501, 2000]));
    case 2: {
      const s = g.string(false);
      return s === '' || s === '.' || s === '..' ? '%00' : encodeSegment(s);
    }
    default:
      return `${encodeSegment(g.string(false))}${g.pick(['%00', '%7F', '%ZZ', '%E2%80%8B'])}`;
  }
}

// ---------------------------------------------------------------------------------------------
// The test

interface Seeded {
  ns: string;
  flag: string;
  bool: string;
  seg: string;
  variant: string;
  rule: string;
  constraint: string;
  distribution: string;
  rollout: string;
}

interface Case {
  /** The route and family this case exercises, e.g. `B PUT /flags/{flag}`. */
  route: string;
  method: string;
  path: string;
  body?: string | Uint8Array;
  kind: string;
  /** True when the request is malformed in a way the server must refuse (4xx). */
  mustFail: boolean;
}

describe('management API fuzzing', () => {
  let server: TestServer;
  let seeded: Seeded;

  /** Everything that the fuzzing must leave as it was, as the API shows it. */
  async function snapshot() {
    const api = server.api;
    const p = `/api/v1/namespaces/${seeded.ns}`;
    const paths = [
      '/api/v1/namespaces',
      p,
      `${p}/flags`,
      `${p}/flags/${seeded.flag}`,
      `${p}/flags/${seeded.bool}`,
      `${p}/segments`,
      `${p}/segments/${seeded.seg}`,
      `${p}/flags/${seeded.flag}/rules`,
      `${p}/flags/${seeded.flag}/rules/${seeded.rule}`,
      `${p}/flags/${seeded.bool}/rollouts`,
      `${p}/flags/${seeded.bool}/rollouts/${seeded.rollout}`,
      '/api/v1/flags',
      '/api/v1/segments',
    ];
    const out: Record<string, unknown> = {};
    for (const path of paths) out[path] = expectStatus(await api.get(path), 200);
    return out;
  }

  beforeAll(async () => {
    server = await startTestServer();
    const api = server.api;
    const ns = 'fuzz';
    const p = `/api/v1/namespaces/${ns}`;
    expectStatus(await api.post('/api/v1/namespaces', { key: ns, name: 'Fuzz' }), 200);
    expectStatus(await api.post(`${p}/flags`, { key: 'fuzz-flag', name: 'Fuzz flag', enabled: true, metadata: { team: 'qa' } }), 200);
    const v1 = expectStatus(await api.post(`${p}/flags/fuzz-flag/variants`, { key: 'v1', attachment: '{"a":1}' }), 200);
    expectStatus(await api.post(`${p}/flags/fuzz-flag/variants`, { key: 'v2' }), 200);
    expectStatus(await api.put(`${p}/flags/fuzz-flag`, { name: 'Fuzz flag', enabled: true, defaultVariantId: v1.id }), 200);
    expectStatus(await api.post(`${p}/segments`, { key: 'fuzz-seg', name: 'Fuzz segment', matchType: 'ANY_MATCH_TYPE' }), 200);
    const constraint = expectStatus(
      await api.post(`${p}/segments/fuzz-seg/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'region', operator: 'eq', value: 'eu' }),
      200,
    );
    const rule = expectStatus(await api.post(`${p}/flags/fuzz-flag/rules`, { segmentKey: 'fuzz-seg', rank: 1 }), 200);
    const distribution = expectStatus(
      await api.post(`${p}/flags/fuzz-flag/rules/${rule.id}/distributions`, { variantId: v1.id, rollout: 100 }),
      200,
    );
    expectStatus(await api.post(`${p}/flags`, { key: 'fuzz-bool', name: 'Fuzz boolean', type: 'BOOLEAN_FLAG_TYPE' }), 200);
    const rollout = expectStatus(
      await api.post(`${p}/flags/fuzz-bool/rollouts`, { rank: 1, threshold: { percentage: 50, value: true } }),
      200,
    );
    seeded = {
      ns,
      flag: 'fuzz-flag',
      bool: 'fuzz-bool',
      seg: 'fuzz-seg',
      variant: v1.id,
      rule: rule.id,
      constraint: constraint.id,
      distribution: distribution.id,
      rollout: rollout.id,
    };
  });

  afterAll(async () => {
    await server?.stop();
  });

  function fill(template: string, odd: Set<string>, g: Gen): string {
    return template.replace(/\{(\w+)\}/g, (_, name: keyof Seeded) => (odd.has(name) ? oddSegment(g) : encodeURIComponent(seeded[name])));
  }

  function prefix(family: Family, ns: string): string {
    return family === 'B' ? `/api/v1/namespaces/${ns}` : '/api/v1';
  }

  /** The malformed requests for one route of one family. */
  function casesFor(g: Gen, route: RouteSpec, family: Family): Case[] {
    const cases: Omit<Case, 'route'>[] = [];
    const placeholders = [...(family === 'B' ? '{ns}' + route.path : route.path).matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const last = placeholders[placeholders.length - 1];
    const pathWith = (odd: Set<string>) => {
      const ns = odd.has('ns') && family === 'B' ? oddSegment(g) : seeded.ns;
      return prefix(family, ns) + fill(route.path, odd, g);
    };
    const someOdd = () => new Set(placeholders.filter((p) => p === last || g.chance(0.3)));

    for (let i = 0; i < CASES_PER_ROUTE; i++) {
      if (route.method === 'GET' || route.method === 'DELETE') {
        const nsQuery = family === 'A' ? (g.chance(0.5) ? 'namespaceKey=fuzz' : `namespaceKey=${oddSegment(g)}`) : '';
        const noise = g.pick(QUERY_NOISE);
        if (route.list && g.chance(0.7)) {
          // Bad paging parameters on the real collection.
          const query = [g.pick(BAD_LIST_QUERIES), nsQuery, noise].filter((q) => q !== '').join('&');
          cases.push({ method: 'GET', path: `${pathWith(new Set())}?${query}`, kind: 'bad query', mustFail: true });
        } else if (route.method === 'DELETE' && route.path === '/namespaces/{ns}' && g.chance(0.3)) {
          // The real namespace, with a force value that is not a boolean.
          const force = g.pick(['maybe', '2', 'yes', 'TRUE', '-1', '%00', 'true%00']);
          cases.push({ method: 'DELETE', path: `/api/v1/namespaces/${seeded.ns}?force=${force}`, kind: 'bad force', mustFail: true });
        } else if (route.path.endsWith('/distributions/{distribution}') && route.method === 'DELETE' && g.chance(0.3)) {
          // The real distribution without the required variantId.
          const query = [g.pick(['', 'variantId=', 'variant_id=']), nsQuery].filter((q) => q !== '').join('&');
          cases.push({ method: 'DELETE', path: `${pathWith(new Set())}?${query}`, kind: 'missing variantId', mustFail: true });
        } else {
          // Odd path segments; a DELETE always aims at something that does not exist.
          const odd = route.method === 'DELETE' || g.chance(0.7) ? someOdd() : new Set<string>();
          const query = [nsQuery, noise].filter((q) => q !== '').join('&');
          cases.push({ method: route.method, path: `${pathWith(odd)}${query ? `?${query}` : ''}`, kind: 'odd path', mustFail: false });
        }
        continue;
      }

      // POST / PUT: the body is always malformed; sometimes the path is odd too.
      const schema = route.body!;
      const path = pathWith(g.chance(0.2) ? someOdd() : new Set());
      const valid = () => JSON.stringify(wrongBody(g, schema, family, false));
      let body: string | Uint8Array;
      let kind: string;
      switch (g.int(10)) {
        case 0:
        case 1:
          kind = 'one wrong type';
          body = valid();
          break;
        case 2:
          kind = 'all wrong types';
          body = JSON.stringify(wrongBody(g, schema, family, true));
          break;
        case 3: {
          kind = 'truncated JSON';
          const text = valid();
          body = text.slice(0, 1 + g.int(text.length - 1));
          break;
        }
        case 4: {
          kind = 'random bytes';
          const bytes = new Uint8Array(1 + g.int(200)).map(() => g.int(256));
          // Make sure the bytes are not valid UTF-8 (a lone continuation byte, an overlong form).
          bytes[g.int(bytes.length)] = g.pick([0x80, 0xff, 0xc0, 0xfe]);
          body = bytes;
          break;
        }
        case 5:
          kind = 'array or scalar body';
          body = g.pick(['[]', '[1,2]', '[{"name":"x","key":"y"}]', '1', '-0', '1e999', '"text"', 'true', 'false', 'null', '""', '[null]']);
          break;
        case 6: {
          kind = 'prototype keys';
          const inner = valid().slice(1); // still contains a wrongly typed field
          body = g.pick([
            `{"__proto__":{"admin":true},${inner}`,
            `{"constructor":{"prototype":{"admin":true}},${inner}`,
            `{"__proto__":null,${inner}`,
            `{"constructor":1,"__proto__":[],${inner}`,
            `{"name":{"__proto__":{"x":1}},${inner}`,
          ]);
          break;
        }
        case 7: {
          kind = 'raw control characters';
          const key = g.pick(Object.keys(schema));
          body = `{"${key}":"a${String.fromCharCode(g.int(32))}b",${valid().slice(1)}`;
          break;
        }
        case 8: {
          kind = 'deep nesting';
          const depth = g.pick([100, 5_000, 50_000]);
          const key = g.pick(Object.keys(schema));
          body = g.chance(0.5) ? `{"${key}":${'['.repeat(depth)}${']'.repeat(depth)}}` : `{"${key}":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
          // The deep value is of the wrong type for every field except a JSON object (metadata):
          // add a wrongly typed field so that the request stays malformed.
          body = `${body.slice(0, -1)},${valid().slice(1)}`;
          break;
        }
        default:
          kind = 'duplicate and snake_case keys';
          body = valid().replace(/"([a-z]+)([A-Z])/, (_, head: string, c: string) => `"${head}_${c.toLowerCase()}`);
          body = `{"name":"ok","name":${JSON.stringify(g.json(1))},${(body as string).slice(1)}`;
          break;
      }
      cases.push({ method: route.method, path, body, kind, mustFail: true });
    }
    return cases.map((c) => ({ ...c, route: `${family} ${route.method} ${route.path}` }));
  }

  /** True when the route's handler (or its body parser) answered, not the router or Fastify itself. */
  function reachedHandler(status: number, text: string): boolean {
    if (status < 400) return true;
    try {
      const b = JSON.parse(text) as { code?: unknown; message?: unknown; details?: unknown };
      if (!Array.isArray(b.details)) return false;
      return !((b.code === 5 && b.message === 'Not Found') || b.code === 12);
    } catch {
      return false;
    }
  }

  function problemsWith(c: Case, status: number, text: string): string[] {
    const problems: string[] = [];
    if (status >= 500) problems.push(`status ${status} >= 500`);
    if (c.mustFail && (status < 400 || status >= 500)) problems.push(`malformed request answered ${status}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      problems.push('response is not JSON');
      return problems;
    }
    if (status >= 400) {
      const b = body as Record<string, unknown>;
      if (typeof b !== 'object' || b === null || Array.isArray(b)) problems.push('error body is not an object');
      else {
        if (JSON.stringify(Object.keys(b)) !== JSON.stringify(['code', 'message', 'details'])) problems.push(`error body keys ${JSON.stringify(Object.keys(b))}`);
        if (typeof b.code !== 'number' || !Number.isInteger(b.code)) problems.push('code is not an integer');
        if (typeof b.message !== 'string') problems.push('message is not a string');
        else {
          if (b.message.includes('    at ')) problems.push('message holds a stack trace');
          if (/SQLITE_|no such table|syntax error|kysely/i.test(b.message)) problems.push('message leaks storage internals');
        }
        if (!Array.isArray(b.details)) problems.push('details is not an array');
      }
    }
    return problems;
  }

  it(`answers 200+ malformed requests on every management route below 500, with Flipt's error body (seed ${SEED})`, async () => {
    const before = await snapshot();
    const g = new Gen(mulberry32(SEED));
    const cases: Case[] = [];
    for (const route of ROUTES) for (const family of route.families) cases.push(...casesFor(g, route, family));
    // A body over the 1 MiB limit, once per body route family.
    cases.push({
      route: 'B POST /flags',
      method: 'POST',
      path: `/api/v1/namespaces/${seeded.ns}/flags`,
      body: JSON.stringify({ key: 'big', name: 'x'.repeat(1_100_000) }),
      kind: 'too large',
      mustFail: true,
    });
    expect(cases.length).toBeGreaterThanOrEqual(200);

    const violations: string[] = [];
    /** Routes that answered at least once with something other than the router's own 404/501. */
    const reached = new Set<string>();
    for (const [n, c] of cases.entries()) {
      const res = await fetch(server.url + c.path, {
        method: c.method,
        headers: c.body === undefined ? {} : { 'content-type': 'application/json' },
        body: c.body,
      });
      const text = await res.text();
      const problems = problemsWith(c, res.status, text);
      if (reachedHandler(res.status, text)) reached.add(c.route);
      if (problems.length > 0) {
        const preview = (s: string) => (s.length > 160 ? `${s.slice(0, 160)}…(${s.length} chars)` : s);
        const sent = c.body === undefined ? '' : typeof c.body === 'string' ? preview(c.body) : `<${c.body.length} bytes>`;
        violations.push(`#${n} [${c.kind}] ${c.method} ${preview(c.path)} ${sent} → ${res.status} ${preview(text)}: ${problems.join('; ')}`);
      }
    }
    // Soft: the checks below still run (and report) when some responses were wrong.
    expect.soft(violations, `seed ${SEED}: ${violations.length} of ${cases.length} responses were wrong`).toEqual([]);
    // Every route of the list exists: some request got past the router to its handler.
    const unreached = [...new Set(cases.map((c) => c.route))].filter((r) => !reached.has(r));
    expect.soft(unreached, 'routes that no request reached').toEqual([]);

    // Still serving, and nothing changed.
    expect(expectStatus(await server.api.get('/health'), 200)).toEqual({ status: 'SERVING' });
    expect(await snapshot()).toEqual(before);
  });
});
