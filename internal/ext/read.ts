import type { Constraint, Distribution, Document, Flag, NamespaceRef, Rollout, Rule, Segment, SegmentKeys, Variant } from './document';
import { ExtError, type ExtLocation, type ExtWarning } from './errors';
import { goMarshal } from './json';
import { lineOf, positionsOf, setIndex, setPositions, sourceOf } from './positions';
import { GATES, gateError, type Version } from './version';

/**
 * Reads one decoded document (plain data) into the document model, as Go's decoder fills
 * Flipt's structs: unknown keys ignored — each one reported as a warning (refused when
 * `strict`) — scalars accepted for string fields (their source text), numbers and booleans
 * typed, null list entries skipped. Positions are carried over to the model's objects so later
 * checks can name lines. A document with no Flipt document shape at all is refused.
 */

type Raw = Record<string, unknown>;
type Key = string | number;

/** Go decodes these into a bool field too (YAML 1.1 compatibility). */
const YAML11_TRUE = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON']);
const YAML11_FALSE = new Set(['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF']);

const FIELDS = {
  document: ['version', 'namespace', 'flags', 'segments'],
  namespace: ['key', 'name', 'description'],
  flag: ['key', 'name', 'type', 'description', 'enabled', 'metadata', 'variants', 'rules', 'rollouts'],
  variant: ['default', 'key', 'name', 'description', 'attachment'],
  rule: ['segment', 'rank', 'distributions'],
  segmentKeys: ['keys', 'operator'],
  distribution: ['variant', 'rollout'],
  rollout: ['description', 'segment', 'threshold'],
  rolloutSegment: ['key', 'keys', 'operator', 'value'],
  threshold: ['percentage', 'value'],
  segment: ['key', 'name', 'description', 'constraints', 'match_type'],
  constraint: ['type', 'property', 'operator', 'value', 'description'],
};

/** Strings are cut short: a whole file read as one scalar must not come back whole in a message. */
const QUOTED_MAX = 60;

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') {
    if (value.length <= QUOTED_MAX) return `the string ${JSON.stringify(value)}`;
    return `the string ${JSON.stringify(value.slice(0, QUOTED_MAX)).slice(0, -1)}…" (${value.length} characters)`;
  }
  return `${typeof value} ${String(value)}`;
}

const SHAPE = `a map with ${FIELDS.document.slice(0, -1).join(', ')} or ${FIELDS.document.at(-1)} at its top`;

interface Where {
  namespace?: string;
  flag?: string;
  segment?: string;
}

export interface ReadOptions {
  /** Index of the document in the stream (1-based). */
  document: number;
  /** The stream's version (the first document's). */
  version: Version;
  /** Refuse unknown keys and apply the schema-only gates (as Flipt's CUE validation does). */
  strict: boolean;
  /** Line to report for every field when positions are unknown (a one-line JSON document). */
  fallbackLine?: number;
  /** Line where the document starts, for what is wrong with the document as a whole. */
  startLine?: number;
}

export class DocumentReader {
  private where: Where = {};
  private path: string[] = [];
  /** Unknown keys met so far, in document order (when not `strict`). */
  readonly warnings: ExtWarning[] = [];

  constructor(private readonly options: ReadOptions) {}

  private location(parent?: object, key?: Key): ExtLocation {
    const field = this.path.join('.').replace(/\.\[/g, '[');
    const location: ExtLocation = { document: this.options.document, ...this.where };
    if (field !== '') location.field = field;
    const line = lineOf(parent, key) ?? this.options.fallbackLine;
    if (line !== undefined) location.line = line;
    return location;
  }

  private fail(reason: string, parent?: object, key?: Key): never {
    throw new ExtError(reason, this.location(parent, key));
  }

  /** Runs `fn` with `segment` appended to the field path. */
  private at<T>(segment: Key, fn: () => T): T {
    this.path.push(typeof segment === 'number' ? `[${segment}]` : segment);
    try {
      return fn();
    } finally {
      this.path.pop();
    }
  }

  private typeError(expected: string, value: unknown, parent: object, key: Key): never {
    return this.fail(`unmarshalling document: expected ${expected}, found ${describe(value)}`, parent, key);
  }

  /** A map, or undefined for null; `kind` names its known fields (null: free-form, like metadata). */
  private map(parent: object, key: Key, value: unknown, kind: keyof typeof FIELDS | null): Raw | undefined {
    if (value === null || value === undefined) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) return this.typeError('a map', value, parent, key);
    if (kind !== null) this.closed(value as Raw, kind);
    return value as Raw;
  }

  /** Keys the schema does not know: refused when strict, else each one a warning (Flipt ignores them silently). */
  private closed(raw: Raw, kind: keyof typeof FIELDS): void {
    for (const name of Object.keys(raw)) {
      if (FIELDS[kind].includes(name)) continue;
      if (this.options.strict) this.at(name, () => this.fail(`unmarshalling document: unknown field ${JSON.stringify(name)}`, raw, name));
      this.at(name, () => this.warnings.push({ message: `unknown key ${JSON.stringify(name)} ignored`, location: this.location(raw, name) }));
    }
  }

  /** `first`: the index in the whole list of `raw[key]`'s first item (a list read a part at a time). */
  private list<T extends object>(raw: Raw, key: string, item: (value: unknown, owner: unknown[], index: number) => T | undefined, first = 0): T[] | undefined {
    const value = raw[key];
    if (value === null || value === undefined) return undefined;
    if (!Array.isArray(value)) return this.at(key, () => this.typeError('a list', value, raw, key));
    const out: T[] = [];
    this.at(key, () => {
      for (const [i, entry] of value.entries()) {
        if (entry === null || entry === undefined) continue;
        const read = this.at(first + i, () => item(entry, value, i));
        if (read === undefined) continue;
        setIndex(read, first + i);
        out.push(read);
      }
    });
    return out;
  }

  private str(raw: object, key: Key, value = (raw as Raw)[key as string]): string | undefined {
    if (value === null || value === undefined) return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return sourceOf(raw, key) ?? String(value);
    return this.at(key, () => this.typeError('a string', value, raw, key));
  }

  private bool(raw: Raw, key: string): boolean | undefined {
    const value = raw[key];
    if (value === null || value === undefined) return undefined;
    if (typeof value === 'boolean') return value;
    // Only YAML documents have positions; JSON's decoder takes true and false alone.
    if (typeof value === 'string' && positionsOf(raw)) {
      if (YAML11_TRUE.has(value)) return true;
      if (YAML11_FALSE.has(value)) return false;
    }
    return this.at(key, () => this.typeError('a boolean', value, raw, key));
  }

  private num(raw: Raw, key: string): number | undefined {
    const value = raw[key];
    if (value === null || value === undefined) return undefined;
    if (typeof value === 'number' && !Number.isNaN(value)) return value;
    return this.at(key, () => this.typeError('a number', value, raw, key));
  }

  private strList(raw: Raw, key: string): string[] | undefined {
    const value = raw[key];
    if (value === null || value === undefined) return undefined;
    if (!Array.isArray(value)) return this.at(key, () => this.typeError('a list', value, raw, key));
    return this.at(key, () => value.map((entry, i) => this.str(value, i, entry) ?? ''));
  }

  /** Copies the defined fields, in order, and carries the source positions over. */
  private build<T extends object>(raw: Raw, fields: Record<string, unknown>): T {
    const out: Record<string, unknown> = {};
    for (const [k, value] of Object.entries(fields)) if (value !== undefined) out[k] = value;
    const positions = positionsOf(raw);
    if (positions) setPositions(out, positions);
    return out as T;
  }

  private gate(gate: { field: string; needs: string }, parent: object, key: Key): void {
    const message = gateError(gate.field, gate.needs, this.options.version);
    if (message) this.at(key, () => this.fail(message, parent, key));
  }

  read(value: unknown): Document {
    if (value === null || value === undefined) return {};
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new ExtError(`not a Flipt document: expected ${SHAPE}, found ${describe(value)}`, { document: this.options.document, line: this.options.startLine });
    }
    this.shape(value as Raw);
    const raw = this.map({}, 'document', value, 'document')!;
    const namespace = this.at('namespace', () => this.namespace(raw));
    const nsKey = namespace === undefined ? 'default' : typeof namespace === 'string' ? namespace : namespace.key || 'default';
    this.where = { namespace: nsKey };
    return this.build<Document>(raw, {
      version: this.str(raw, 'version'),
      namespace,
      flags: this.list(raw, 'flags', (v, owner, i) => this.flag(owner, i, v)),
      segments: this.list(raw, 'segments', (v, owner, i) => this.segment(owner, i, v)),
    });
  }

  /**
   * Items of a document's `flags` or `segments` list read a part at a time (a streamed import,
   * after `read` has read the document without them): `items` are the list's items from index
   * `first` on, `namespace` the document's namespace key.
   */
  readItems(kind: 'flags', items: unknown[], first: number, namespace: string): Flag[];
  readItems(kind: 'segments', items: unknown[], first: number, namespace: string): Segment[];
  readItems(kind: 'flags' | 'segments', items: unknown[], first: number, namespace: string): (Flag | Segment)[] {
    this.where = { namespace };
    const read = (v: unknown, owner: unknown[], i: number) => (kind === 'flags' ? this.flag(owner, i, v) : this.segment(owner, i, v));
    return this.list<Flag | Segment>({ [kind]: items }, kind, read, first) ?? [];
  }

  /**
   * Another kind of file read as YAML is usually a map too: with none of the document's keys
   * (or only `version`, beside keys of its own, as a package.json has) it is refused, not
   * imported as nothing.
   */
  private shape(raw: Raw): void {
    const keys = Object.keys(raw);
    const known = keys.filter((k) => FIELDS.document.includes(k));
    if (keys.length === 0 || known.some((k) => k !== 'version') || known.length === keys.length) return;
    const shown = keys.slice(0, 5).map((k) => JSON.stringify(k.length > QUOTED_MAX ? `${k.slice(0, QUOTED_MAX)}…` : k));
    const others = keys.length > 5 ? ` and ${keys.length - 5} more` : '';
    const line = lineOf(raw, keys.find((k) => !FIELDS.document.includes(k))) ?? this.options.fallbackLine ?? this.options.startLine;
    throw new ExtError(`not a Flipt document: expected ${SHAPE}, found the keys ${shown.join(', ')}${others}`, { document: this.options.document, line });
  }

  private namespace(raw: Raw): NamespaceRef | undefined {
    const value = raw.namespace;
    if (value === null || value === undefined) return undefined;
    if (typeof value !== 'object') return this.str(raw, 'namespace');
    const ns = this.map(raw, 'namespace', value, 'namespace')!;
    return this.build(ns, { key: this.str(ns, 'key'), name: this.str(ns, 'name'), description: this.str(ns, 'description') });
  }

  private flag(owner: object, index: number, value: unknown): Flag {
    const raw = this.map(owner, index, value, null)!;
    const key = this.str(raw, 'key');
    // Inside a flag, fields are named from the flag (the location names the flag).
    const outer = this.path;
    this.path = [];
    this.where = { namespace: this.where.namespace, flag: key ?? '' };
    this.closed(raw, 'flag');
    const flag = this.build<Flag>(raw, {
      key,
      name: this.str(raw, 'name'),
      type: this.str(raw, 'type'),
      description: this.str(raw, 'description'),
      enabled: this.bool(raw, 'enabled') ?? false,
      metadata: this.at('metadata', () => this.map(raw, 'metadata', raw.metadata, null)),
      variants: this.list(raw, 'variants', (v, o, i) => this.variant(o, i, v)),
      rules: this.list(raw, 'rules', (v, o, i) => this.rule(o, i, v)),
      rollouts: this.list(raw, 'rollouts', (v, o, i) => this.rollout(o, i, v)),
    });
    if (flag.metadata !== undefined && this.options.strict) this.gate(GATES.flagMetadata, raw, 'metadata');
    this.where = { namespace: this.where.namespace };
    this.path = outer;
    return flag;
  }

  private variant(owner: object, index: number, value: unknown): Variant {
    const raw = this.map(owner, index, value, 'variant')!;
    return this.build<Variant>(raw, {
      default: this.bool(raw, 'default'),
      key: this.str(raw, 'key'),
      name: this.str(raw, 'name'),
      description: this.str(raw, 'description'),
      attachment: raw.attachment ?? undefined,
    });
  }

  private rule(owner: object, index: number, value: unknown): Rule {
    const raw = this.map(owner, index, value, 'rule')!;
    let segment: string | SegmentKeys | undefined;
    if (raw.segment !== null && typeof raw.segment === 'object' && !Array.isArray(raw.segment)) {
      const keys = this.at('segment', () => this.map(raw, 'segment', raw.segment, 'segmentKeys')!);
      segment = this.at('segment', () => this.build<SegmentKeys>(keys, { keys: this.strList(keys, 'keys'), operator: this.str(keys, 'operator') }));
    } else {
      segment = this.str(raw, 'segment');
    }
    const rank = this.num(raw, 'rank');
    if (rank !== undefined && !(Number.isInteger(rank) && rank >= 0)) {
      this.at('rank', () => this.typeError('a whole number of at least 0', rank, raw, 'rank'));
    }
    return this.build<Rule>(raw, {
      segment,
      rank: rank === 0 ? undefined : rank,
      distributions: this.list(raw, 'distributions', (v, o, i) => {
        const d = this.map(o, i, v, 'distribution')!;
        return this.build<Distribution>(d, { variant: this.str(d, 'variant'), rollout: this.num(d, 'rollout') ?? 0 });
      }),
    });
  }

  private rollout(owner: object, index: number, value: unknown): Rollout {
    const raw = this.map(owner, index, value, 'rollout')!;
    const segment = this.at('segment', () => this.map(raw, 'segment', raw.segment, 'rolloutSegment'));
    const threshold = this.at('threshold', () => this.map(raw, 'threshold', raw.threshold, 'threshold'));
    return this.build<Rollout>(raw, {
      description: this.str(raw, 'description'),
      segment:
        segment &&
        this.at('segment', () =>
          this.build(segment, {
            key: this.str(segment, 'key'),
            keys: this.strList(segment, 'keys'),
            operator: this.str(segment, 'operator'),
            value: this.bool(segment, 'value'),
          }),
        ),
      threshold:
        threshold &&
        this.at('threshold', () => this.build(threshold, { percentage: this.num(threshold, 'percentage') ?? 0, value: this.bool(threshold, 'value') })),
    });
  }

  private segment(owner: object, index: number, value: unknown): Segment {
    const raw = this.map(owner, index, value, null)!;
    const key = this.str(raw, 'key');
    const outer = this.path;
    this.path = [];
    this.where = { namespace: this.where.namespace, segment: key ?? '' };
    this.closed(raw, 'segment');
    const segment = this.build<Segment>(raw, {
      key,
      name: this.str(raw, 'name'),
      description: this.str(raw, 'description'),
      constraints: this.list(raw, 'constraints', (v, o, i) => this.constraint(o, i, v)),
      match_type: this.str(raw, 'match_type'),
    });
    this.where = { namespace: this.where.namespace };
    this.path = outer;
    return segment;
  }

  private constraint(owner: object, index: number, value: unknown): Constraint {
    const raw = this.map(owner, index, value, 'constraint')!;
    let text: string | undefined;
    if (Array.isArray(raw.value)) {
      // From 1.6 a list of values (isoneof/isnotoneof) is written as a YAML list; stored as JSON text.
      this.gate(GATES.constraintValueList, raw, 'value');
      const list = raw.value;
      text = goMarshal(
        this.at('value', () =>
          list.map((item, i) => {
            if (typeof item === 'string' || typeof item === 'number') return item;
            if (typeof item === 'boolean') return String(item);
            if (item === null || item === undefined) return '';
            return this.at(i, () => this.typeError('a string or a number', item, list, i));
          }),
        ),
      );
    } else {
      text = this.str(raw, 'value');
    }
    return this.build<Constraint>(raw, {
      type: this.str(raw, 'type'),
      property: this.str(raw, 'property'),
      operator: this.str(raw, 'operator'),
      value: text,
      description: this.str(raw, 'description'),
    });
  }
}
