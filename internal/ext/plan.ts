import { FLAG_TYPES, MATCH_TYPES, PennonError, SEGMENT_OPERATORS, invalidField, type ComparisonType, type SegmentOperator } from '../core';
import { bounded, required, requiredKey, segmentKeysOf, validAttachment, validateConstraint } from '../management';
import type {
  ConstraintInput,
  FlagCreateInput,
  NamespaceInput,
  RolloutInput,
  RuleInput,
  SegmentInput,
  VariantInput,
} from '../storage';
import type { DecodedStream } from './decode';
import { namespaceKeyOf, type Document, type Flag, type Rollout, type Segment } from './document';
import { ExtError, zeroCounts, type ExtLocation, type ImportCounts } from './errors';
import { goMarshal, sortKeysDeep } from './json';
import { indexOf, lineOf } from './positions';
import { GATES, compareVersions, gateError, knownVersion } from './version';

/**
 * Validation of a whole stream before anything is written, and the plan it yields: every
 * object's store input, normalised as the management API normalises it (operators lower-cased,
 * datetimes in RFC 3339, attachments as compact JSON, one segment means OR, …), in the order
 * Flipt's importer creates them. Keys already in the store come in `ExistingState`.
 */

export interface ExistingState {
  namespaces: Set<string>;
  /** Flag keys per namespace. */
  flags: Map<string, Set<string>>;
  /** Segment keys per namespace. */
  segments: Map<string, Set<string>>;
}

/** What the store holds after `--drop`: only an empty `default` namespace. */
export function droppedState(): ExistingState {
  return { namespaces: new Set(['default']), flags: new Map(), segments: new Map() };
}

export interface PlanOptions {
  /** Leave out flags and segments whose keys exist already (per document), as `--skip-existing` does. */
  skipExisting?: boolean;
}

export interface RulePlan {
  input: RuleInput;
  /** `variant` indexes the flag's `variants`. */
  distributions: { variant: number; rollout: number }[];
}

export interface FlagPlan {
  input: FlagCreateInput;
  variants: VariantInput[];
  /** Index into `variants` of the default variant (the last one marked default), or null. */
  defaultVariant: number | null;
  /** In evaluation order (by rank, then position). */
  rules: RulePlan[];
  rollouts: RolloutInput[];
}

export interface SegmentPlan {
  key: string;
  input: SegmentInput;
  constraints: ConstraintInput[];
}

export interface DocumentPlan {
  /** 1-based position in the stream. */
  document: number;
  namespace: string;
  /** Set when the namespace must be created first. */
  createNamespace: NamespaceInput | null;
  flags: FlagPlan[];
  segments: SegmentPlan[];
  skipped: { flags: string[]; segments: string[] };
}

export interface ImportPlan {
  documents: DocumentPlan[];
  /** What applying the plan creates. */
  counts: ImportCounts;
}

const pick = <T extends string>(allowed: readonly T[], value: string | undefined, fallback: T, what: string): T => {
  if (value === undefined || value === '') return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new PennonError('invalid', `unknown ${what} ${JSON.stringify(value)} (expected ${allowed.join(' or ')})`);
};

const pathOf = (items: object, name: string, fallback: number) => `${name}[${indexOf(items, fallback)}]`;

export function planImport(stream: DecodedStream, existing: ExistingState, options: PlanOptions = {}): ImportPlan {
  const planner = new Planner(stream, existing, options);
  return { documents: stream.documents.map((doc, i) => planner.document(doc, i + 1)), counts: planner.counts };
}

/**
 * A planner for a stream read a part at a time (importParts, importer.ts): `document` may be called
 * several times with the same index, each time with some of that document's flags or
 * segments — its segments first, so that rules can name them.
 */
export function partPlanner(version: DecodedStream['version'], existing: ExistingState, options: PlanOptions = {}): Pick<Planner, 'document' | 'counts'> {
  return new Planner({ version }, existing, options);
}

class Planner {
  readonly counts = zeroCounts();
  private readonly namespaces: Set<string>;
  private readonly flags = new Map<string, Set<string>>();
  private readonly segments = new Map<string, Set<string>>();
  private loc: ExtLocation = { document: 0 };
  /** The keys that existed when the current document began (a document may come in parts). */
  private begun: { index: number; flags: Set<string>; segments: Set<string> } | null = null;

  constructor(
    private readonly stream: Pick<DecodedStream, 'version'>,
    existing: ExistingState,
    private readonly options: PlanOptions,
  ) {
    this.namespaces = new Set(existing.namespaces);
    for (const [ns, keys] of existing.flags) this.flags.set(ns, new Set(keys));
    for (const [ns, keys] of existing.segments) this.segments.set(ns, new Set(keys));
  }

  /** Runs `check`, turning any validation error into one that says where it is. */
  private at(field: string | undefined, owner: object | undefined, key: string | number | undefined, check: () => void): void {
    try {
      check();
    } catch (err) {
      if (err instanceof ExtError || !(err instanceof PennonError)) throw err;
      this.fail(err.message, field, owner, key);
    }
  }

  private fail(reason: string, field: string | undefined, owner?: object, key?: string | number): never {
    const location: ExtLocation = { ...this.loc };
    if (field !== undefined) location.field = field;
    const line = lineOf(owner, key);
    if (line !== undefined) location.line = line;
    throw new ExtError(reason, location);
  }

  private keysOf(map: Map<string, Set<string>>, ns: string): Set<string> {
    let keys = map.get(ns);
    if (!keys) map.set(ns, (keys = new Set()));
    return keys;
  }

  document(doc: Document, index: number): DocumentPlan {
    const ns = namespaceKeyOf(doc);
    this.loc = { document: index, namespace: ns };
    const plan: DocumentPlan = { document: index, namespace: ns, createNamespace: null, flags: [], segments: [], skipped: { flags: [], segments: [] } };
    this.at('namespace', doc, 'namespace', () => requiredKey(ns));
    if (!this.namespaces.has(ns)) {
      const given = typeof doc.namespace === 'object' ? doc.namespace : undefined;
      const fallbackName = ns === 'default' ? 'Default' : ns;
      plan.createNamespace = {
        key: ns,
        name: given?.name || fallbackName,
        description: given?.description ?? (ns === 'default' ? 'Default namespace' : ''),
      };
      this.at('namespace.name', doc.namespace as object | undefined, 'name', () => bounded(plan.createNamespace!.name, 'name'));
      this.namespaces.add(ns);
      this.counts.namespaces++;
    }

    // Skipping compares with what existed when this document began (earlier documents included).
    const flagKeys = this.keysOf(this.flags, ns);
    const segmentKeys = this.keysOf(this.segments, ns);
    if (this.begun?.index !== index) this.begun = { index, flags: new Set(flagKeys), segments: new Set(segmentKeys) };
    const { flags: existingFlags, segments: existingSegments } = this.begun;
    const created: { flag: Flag; plan: FlagPlan; variantKeys: Map<string, number> }[] = [];

    // Flipt's order: flags with their variants, then segments, then rules and rollouts.
    for (const flag of doc.flags ?? []) {
      const key = flag.key ?? '';
      this.loc = { document: index, namespace: ns, flag: key };
      if (this.options.skipExisting && existingFlags.has(key)) {
        plan.skipped.flags.push(key);
        continue;
      }
      const entry = this.flag(flag);
      if (flagKeys.has(key)) this.fail(`flag "${ns}/${key}" is not unique`, 'key', flag, 'key');
      flagKeys.add(key);
      created.push({ flag, ...entry });
      plan.flags.push(entry.plan);
    }

    for (const segment of doc.segments ?? []) {
      const key = segment.key ?? '';
      this.loc = { document: index, namespace: ns, segment: key };
      if (this.options.skipExisting && existingSegments.has(key)) {
        plan.skipped.segments.push(key);
        continue;
      }
      const entry = this.segment(segment);
      if (segmentKeys.has(key)) this.fail(`segment "${ns}/${key}" is not unique`, 'key', segment, 'key');
      segmentKeys.add(key);
      plan.segments.push(entry);
    }

    for (const { flag, plan: flagPlan, variantKeys } of created) {
      this.loc = { document: index, namespace: ns, flag: flagPlan.input.key };
      flagPlan.rules = this.rules(flag, variantKeys, segmentKeys);
      flagPlan.rollouts = this.rollouts(flag, ns, segmentKeys);
    }
    return plan;
  }

  private flag(flag: Flag): { plan: FlagPlan; variantKeys: Map<string, number> } {
    const version = this.stream.version;
    if (flag.type !== undefined && flag.type !== '') {
      const gate = gateError(GATES.flagType.field, GATES.flagType.needs, version);
      if (gate) this.fail(gate, 'type', flag, 'type');
    }
    this.at('key', flag, 'key', () => requiredKey(flag.key ?? ''));
    this.at('name', flag, 'name', () => required(flag.name ?? '', 'name'));
    let type: FlagCreateInput['type'] = 'VARIANT_FLAG_TYPE';
    this.at('type', flag, 'type', () => (type = pick(FLAG_TYPES, flag.type, 'VARIANT_FLAG_TYPE', 'flag type')));
    const metadata = flag.metadata && Object.keys(flag.metadata).length > 0 ? flag.metadata : null;
    const plan: FlagPlan = {
      input: { key: flag.key!, name: flag.name!, description: flag.description ?? '', enabled: flag.enabled, type, metadata },
      variants: [],
      defaultVariant: null,
      rules: [],
      rollouts: [],
    };
    this.counts.flags++;

    const variantKeys = new Map<string, number>();
    for (const [j, variant] of (flag.variants ?? []).entries()) {
      const field = pathOf(variant, 'variants', j);
      const key = variant.key ?? '';
      this.at(`${field}.key`, variant, 'key', () => required(key, 'key'));
      this.at(`${field}.name`, variant, 'name', () => bounded(variant.name ?? '', 'name'));
      if (variantKeys.has(key)) this.fail(`variant "${key}" is not unique for flag "${this.loc.namespace}/${flag.key}"`, `${field}.key`, variant, 'key');
      let attachment = '';
      if (variant.attachment !== undefined && variant.attachment !== null) {
        const native = variant.attachment;
        this.at(`${field}.attachment`, variant, 'attachment', () => {
          if (hasNonFinite(native)) throw new PennonError('invalid', 'marshalling attachment: json: unsupported value (NaN or infinity)');
          attachment = validAttachment(goMarshal(sortKeysDeep(native)));
        });
      }
      if (variant.default) {
        const gate = gateError(GATES.variantDefault.field, GATES.variantDefault.needs, version);
        if (gate) this.fail(gate, `${field}.default`, variant, 'default');
        plan.defaultVariant = plan.variants.length;
      }
      variantKeys.set(key, plan.variants.length);
      plan.variants.push({ key, name: variant.name ?? '', description: variant.description ?? '', attachment });
      this.counts.variants++;
    }
    return { plan, variantKeys };
  }

  private segment(segment: Segment): SegmentPlan {
    this.at('key', segment, 'key', () => requiredKey(segment.key ?? ''));
    this.at('name', segment, 'name', () => required(segment.name ?? '', 'name'));
    const plan: SegmentPlan = {
      key: segment.key!,
      input: { name: segment.name!, description: segment.description ?? '', matchType: 'ALL_MATCH_TYPE' },
      constraints: [],
    };
    // An absent match type is Go's zero value: ALL.
    this.at('match_type', segment, 'match_type', () => (plan.input.matchType = pick(MATCH_TYPES, segment.match_type, 'ALL_MATCH_TYPE', 'match type')));
    this.counts.segments++;
    for (const [k, c] of (segment.constraints ?? []).entries()) {
      const field = pathOf(c, 'constraints', k);
      this.at(field, c, undefined, () =>
        plan.constraints.push(
          validateConstraint({
            type: (c.type ?? '') as ComparisonType,
            property: c.property ?? '',
            operator: c.operator ?? '',
            value: c.value ?? '',
            description: c.description ?? '',
          }),
        ),
      );
      this.counts.constraints++;
    }
    return plan;
  }

  /** Segment keys of a rule or rollout, checked against the segments the namespace will have. */
  private segmentKeys(owner: object, field: string, single: string, list: string[], operator: string | undefined, known: Set<string>): RuleInput {
    let keys: string[] = [];
    let op: SegmentOperator = 'OR_SEGMENT_OPERATOR';
    this.at(field, owner, 'segment', () => {
      keys = segmentKeysOf({ segmentKey: single, segmentKeys: list });
      op = pick(SEGMENT_OPERATORS, operator, 'OR_SEGMENT_OPERATOR', 'segment operator');
    });
    for (const key of keys) {
      if (!known.has(key)) this.fail(`segment "${this.loc.namespace}/${key}" not found in the document or the store`, field, owner, 'segment');
    }
    return { segmentKeys: keys, segmentOperator: keys.length === 1 ? 'OR_SEGMENT_OPERATOR' : op };
  }

  private rules(flag: Flag, variantKeys: Map<string, number>, known: Set<string>): RulePlan[] {
    // A missing rank is the rule's position + 1 from version 1.1 (before: 0, which sorts first).
    const implicitRanks = compareVersions(this.stream.version, knownVersion('1.1')) >= 0;
    const ranked: { rank: number; plan: RulePlan }[] = [];
    for (const [k, rule] of (flag.rules ?? []).entries()) {
      const index = indexOf(rule, k);
      const field = `rules[${index}]`;
      const segment = rule.segment;
      const input =
        typeof segment === 'object'
          ? this.segmentKeys(rule, `${field}.segment`, '', segment.keys ?? [], segment.operator, known)
          : this.segmentKeys(rule, `${field}.segment`, segment ?? '', [], undefined, known);
      const plan: RulePlan = { input, distributions: [] };
      for (const [j, d] of (rule.distributions ?? []).entries()) {
        const dField = `${field}.distributions[${indexOf(d, j)}]`;
        const variant = variantKeys.get(d.variant ?? '');
        if (variant === undefined) this.fail(`finding variant: ${d.variant ?? ''}; flag: ${flag.key}`, `${dField}.variant`, d, 'variant');
        this.at(`${dField}.rollout`, d, 'rollout', () => checkRollout(d.rollout));
        plan.distributions.push({ variant, rollout: d.rollout });
        this.counts.distributions++;
      }
      ranked.push({ rank: rule.rank ?? (implicitRanks ? index + 1 : 0), plan });
      this.counts.rules++;
    }
    // Pennon keeps ranks 1..n, so rules are created in the order Flipt would evaluate them.
    return ranked.sort((a, b) => a.rank - b.rank).map((r) => r.plan);
  }

  private rollouts(flag: Flag, ns: string, known: Set<string>): RolloutInput[] {
    const rollouts = flag.rollouts ?? [];
    if (rollouts.length === 0) return [];
    const gate = gateError(GATES.flagRollouts.field, GATES.flagRollouts.needs, this.stream.version);
    if (gate) this.fail(gate, 'rollouts', flag, 'rollouts');
    return rollouts.map((rollout, k) => this.rollout(rollout, indexOf(rollout, k), ns, flag.key ?? '', known));
  }

  private rollout(rollout: Rollout, index: number, ns: string, flagKey: string, known: Set<string>): RolloutInput {
    const field = `rollouts[${index}]`;
    const { segment, threshold } = rollout;
    this.counts.rollouts++;
    if (segment && threshold) {
      this.fail(`rollout "${ns}/${flagKey}/${index}" cannot have both segment and percentage rule`, field, rollout, 'threshold');
    }
    if (segment) {
      const keys = segment.keys ?? [];
      if (keys.length > 0 && segment.key) {
        this.fail(`rollout ${ns}/${flagKey}/${index} cannot have both segment.keys and segment.key`, `${field}.segment`, rollout, 'segment');
      }
      if (keys.length > 0) {
        const gate = gateError(GATES.rolloutSegmentKeys.field, GATES.rolloutSegmentKeys.needs, this.stream.version);
        if (gate) this.fail(gate, `${field}.segment.keys`, segment, 'keys');
      }
      const input = this.segmentKeys(rollout, `${field}.segment`, segment.key ?? '', keys, segment.operator, known);
      return { description: rollout.description ?? '', threshold: null, segment: { ...input, value: segment.value ?? false } };
    }
    if (threshold) {
      const { percentage } = threshold;
      if (!(percentage >= 0 && percentage <= 100)) {
        this.fail(invalidField('threshold.percentage', 'must be within range [0, 100]').message, `${field}.threshold.percentage`, threshold, 'percentage');
      }
      return { description: rollout.description ?? '', segment: null, threshold: { percentage, value: threshold.value ?? false } };
    }
    return this.fail('rollout rule is missing', field, rollout, undefined);
  }
}

function checkRollout(rollout: number): void {
  if (!(rollout >= 0)) throw invalidField('rollout', "must be greater than or equal to '0'");
  if (rollout > 100) throw invalidField('rollout', "must be less than or equal to '100'");
}

function hasNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasNonFinite);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasNonFinite);
  return false;
}
