import { PennonError, isPennonError } from '../core';
import type { ListParams, ReadStore, WriteStore } from '../storage';
import { decodeDocuments, type DecodeOptions, type DecodedStream } from './decode';
import { namespaceKeyOf, type Document } from './document';
import type { PartedStream } from './decode-parts';
import { ExtError, PartialImportError, totalOf, zeroCounts, type ExtWarning, type ImportCounts } from './errors';
import { droppedState, partPlanner, planImport, type DocumentPlan, type ExistingState, type ImportPlan, type PlanOptions } from './plan';

/**
 * Importing a stream into a store: read what exists, validate and plan the whole stream, then
 * create everything with no read-backs. A target with `transaction` (the SQL store) imports
 * all-or-nothing; one without (the HTTP API) cannot roll back, so a failure part-way says how
 * much had been created.
 */

/** What the importer needs from a store: the SQL `Store` and the HTTP adapter both fit. */
export interface ImportTarget
  extends Pick<ReadStore, 'getNamespace' | 'listNamespaces' | 'listFlags' | 'listSegments'>,
    Pick<
      WriteStore,
      | 'createNamespace'
      | 'deleteNamespace'
      | 'createFlag'
      | 'updateFlag'
      | 'createVariant'
      | 'createSegment'
      | 'createConstraint'
      | 'createRule'
      | 'createDistribution'
      | 'createRollout'
    > {
  /** Present when writes can be made all-or-nothing. */
  transaction?<T>(fn: (target: ImportTarget) => Promise<T>): Promise<T>;
  /** Present when a store can write a namespace's new objects in bulk (the SQL store). */
  createBatch?: WriteStore['createBatch'];
}

export interface ImportProgress {
  /** Objects created so far, and how many the import creates in all. */
  done: number;
  total: number;
  created: ImportCounts;
}

export interface ImportOptions extends PlanOptions {
  /** Delete every namespace (with everything in it) and re-create `default` before importing. */
  drop?: boolean;
  /** Called after each object is created (a progress bar should throttle its own drawing). */
  onProgress?: (progress: ImportProgress) => void;
}

export interface ImportResult {
  created: ImportCounts;
  /** Keys left out by `skipExisting`, per document (namespace/key). */
  skipped: { flags: string[]; segments: string[] };
  /** Namespaces deleted by `drop`. */
  dropped: string[];
}

const ALL: ListParams = { limit: 0, offset: 0 };

/** Decodes `text` and imports it (see `importStream`). */
export function importText(target: ImportTarget, text: string, options: ImportOptions & DecodeOptions): Promise<ImportResult> {
  return importStream(target, decodeDocuments(text, options), options);
}

/** Validates the whole stream against the store, then writes it (in one transaction when the target has them). */
export async function importStream(target: ImportTarget, stream: DecodedStream, options: ImportOptions = {}): Promise<ImportResult> {
  const run = async (t: ImportTarget) => {
    // After --drop only an empty `default` remains, so nothing needs reading.
    const existing = options.drop ? droppedState() : await readExistingState(t, namespacesOf(stream.documents));
    const plan = planImport(stream, existing, options);
    return applyPlan(t, plan, options);
  };
  return target.transaction ? target.transaction(run) : run(target);
}

/**
 * A stream decoded in parts (decode-parts.ts), imported as it is read: each part is planned
 * and written before the next is parsed, so memory holds one part and the keys seen so far.
 * Only into a target with transactions — a failure in a late part undoes the earlier ones — so
 * it stays all-or-nothing. One difference from importStream: a document with several errors
 * may report a different one first (its segments are checked before its flags, and a part's
 * rules before a later part's flags), never none.
 */
export async function importParts(target: ImportTarget, stream: PartedStream, options: ImportOptions & { onWarning?: (warning: ExtWarning) => void } = {}): Promise<ImportResult> {
  if (!target.transaction) throw new PennonError('internal', 'an import in parts needs a target with transactions');
  return target.transaction(async (t) => {
    const existing = options.drop ? droppedState() : await readExistingState(t, namespacesOf(stream.heads));
    const planner = partPlanner(stream.version, existing, options);
    // The whole size is known only once read: estimated from the flags read so far.
    const flagsInAll = stream.flagCounts.reduce((a, b) => a + b, 0);
    const total = () => Math.round(totalOf(planner.counts) * (flagsInAll / Math.max(1, planner.counts.flags)));
    const writer = new PlanWriter(t, options, total);
    try {
      if (options.drop) await writer.drop();
      for (const part of stream.parts(options.onWarning)) await writer.document(planner.document(part.doc, part.document));
    } catch (err) {
      if (err instanceof ExtError) throw err; // a document's own error, said as it would be had it been read whole
      throw writer.failure(err, true);
    }
    return writer.result;
  });
}

/** The namespaces documents write to, in order of first mention. */
export function namespacesOf(documents: readonly Document[]): string[] {
  return [...new Set(documents.map(namespaceKeyOf))];
}

/** Which of `namespaces` exist, and the flag and segment keys each holds: three reads per namespace. */
export async function readExistingState(target: ImportTarget, namespaces: string[]): Promise<ExistingState> {
  const state: ExistingState = { namespaces: new Set(), flags: new Map(), segments: new Map() };
  for (const ns of namespaces) {
    try {
      await target.getNamespace(ns);
    } catch (err) {
      if (isPennonError(err) && err.kind === 'not_found') continue;
      throw err;
    }
    state.namespaces.add(ns);
    const [flags, segments] = [await target.listFlags(ns, ALL), await target.listSegments(ns, ALL)];
    state.flags.set(ns, new Set(flags.items.map((f) => f.key)));
    state.segments.set(ns, new Set(segments.items.map((s) => s.key)));
  }
  return state;
}

/**
 * Writes a plan. Each object is created once, with the ids the store returns kept for the
 * objects that refer to it; nothing is read back. Errors name the object being created.
 */
export async function applyPlan(target: ImportTarget, plan: ImportPlan, options: Omit<ImportOptions, 'skipExisting'> = {}): Promise<ImportResult> {
  if (target.transaction) return target.transaction((t) => write(t, plan, options, true));
  return write(target, plan, options, false);
}

async function write(t: ImportTarget, plan: ImportPlan, options: Omit<ImportOptions, 'skipExisting'>, atomic: boolean): Promise<ImportResult> {
  const writer = new PlanWriter(t, options, () => totalOf(plan.counts));
  try {
    if (options.drop) await writer.drop();
    for (const doc of plan.documents) await writer.document(doc);
  } catch (err) {
    throw writer.failure(err, atomic);
  }
  return writer.result;
}

/**
 * Writes the plans of documents (or of parts of them) one after another, counting what it
 * creates and remembering what it was doing, so that a failure says which object it was at.
 */
export class PlanWriter {
  readonly created = zeroCounts();
  readonly result: ImportResult = { created: this.created, skipped: { flags: [], segments: [] }, dropped: [] };
  private done = 0;
  private doing = '';

  constructor(
    private readonly t: ImportTarget,
    private readonly options: Pick<ImportOptions, 'onProgress'>,
    /** How many objects the import creates in all (an estimate while a streamed import reads on). */
    private readonly total: () => number,
  ) {}

  private made(kind: keyof ImportCounts, n = 1): void {
    if (n === 0) return;
    this.created[kind] += n;
    this.done += n;
    this.options.onProgress?.({ done: this.done, total: Math.max(this.done, this.total()), created: this.created });
  }

  private step<T>(what: string, fn: () => Promise<T>): Promise<T> {
    this.doing = what;
    return fn();
  }

  /** Deletes every namespace and re-creates an empty `default`. */
  async drop(): Promise<void> {
    const { t } = this;
    const namespaces = await this.step('listing namespaces', () => t.listNamespaces(ALL));
    for (const ns of namespaces.items) {
      await this.step(`deleting namespace "${ns.key}"`, () => t.deleteNamespace(ns.key, true));
      this.result.dropped.push(ns.key);
    }
    await this.step('creating namespace "default"', () => t.createNamespace({ key: 'default', name: 'Default', description: 'Default namespace' }));
  }

  async document(doc: DocumentPlan): Promise<void> {
    const { t, result } = this;
    const ns = doc.namespace;
    for (const key of doc.skipped.flags) result.skipped.flags.push(`${ns}/${key}`);
    for (const key of doc.skipped.segments) result.skipped.segments.push(`${ns}/${key}`);
    if (doc.createNamespace) {
      const input = doc.createNamespace;
      await this.step(`creating namespace "${ns}"`, () => t.createNamespace(input));
      this.made('namespaces');
    }
    if (doc.flags.length === 0 && doc.segments.length === 0) return;

    if (t.createBatch) {
      // One bulk write per document: a few multi-row statements instead of ~40 per flag.
      const batch = { flags: doc.flags, segments: doc.segments };
      await this.step(`writing namespace "${ns}"`, () => t.createBatch!(ns, batch));
      for (const f of doc.flags) {
        this.made('flags');
        this.made('variants', f.variants.length);
        for (const r of f.rules) {
          this.made('rules');
          this.made('distributions', r.distributions.length);
        }
        this.made('rollouts', f.rollouts.length);
      }
      for (const seg of doc.segments) {
        this.made('segments');
        this.made('constraints', seg.constraints.length);
      }
      return;
    }
    await this.oneByOne(doc);
  }

  /** A target without bulk writes (the HTTP API): one request per object. */
  private async oneByOne(doc: DocumentPlan): Promise<void> {
    const { t } = this;
    const ns = doc.namespace;
    const variantIds = new Map<string, string[]>();
    for (const flag of doc.flags) {
      const ref = `"${ns}/${flag.input.key}"`;
      await this.step(`creating flag ${ref}`, () => t.createFlag(ns, flag.input));
      this.made('flags');
      const ids: string[] = [];
      for (const variant of flag.variants) {
        ids.push((await this.step(`creating variant "${variant.key}" of flag ${ref}`, () => t.createVariant(ns, flag.input.key, variant))).id);
        this.made('variants');
      }
      variantIds.set(flag.input.key, ids);
      if (flag.defaultVariant !== null) {
        const { name, description, enabled } = flag.input;
        const defaultVariantId = ids[flag.defaultVariant];
        await this.step(`setting the default variant of flag ${ref}`, () =>
          t.updateFlag(ns, flag.input.key, { name, description, enabled, defaultVariantId, metadata: undefined }),
        );
      }
    }

    for (const segment of doc.segments) {
      const ref = `"${ns}/${segment.key}"`;
      await this.step(`creating segment ${ref}`, () => t.createSegment(ns, segment.key, segment.input));
      this.made('segments');
      for (const [i, constraint] of segment.constraints.entries()) {
        await this.step(`creating constraint ${i + 1} of segment ${ref}`, () => t.createConstraint(ns, segment.key, constraint));
        this.made('constraints');
      }
    }

    for (const flag of doc.flags) {
      const key = flag.input.key;
      const ids = variantIds.get(key)!;
      for (const [i, rule] of flag.rules.entries()) {
        // The flag is new: appending at i + 1 keeps the planned order with no re-ranking.
        const label = `rule ${i + 1} of flag "${ns}/${key}"`;
        const created = await this.step(`creating ${label}`, () => t.createRule(ns, key, i + 1, rule.input));
        this.made('rules');
        for (const d of rule.distributions) {
          await this.step(`creating a distribution of ${label}`, () => t.createDistribution(ns, key, created.id, { variantId: ids[d.variant], rollout: d.rollout }));
          this.made('distributions');
        }
      }
      for (const [i, rollout] of flag.rollouts.entries()) {
        await this.step(`creating rollout ${i + 1} of flag "${ns}/${key}"`, () => t.createRollout(ns, key, i + 1, rollout));
        this.made('rollouts');
      }
    }
  }

  /** The error to throw for `err`: naming what was being done, and (without a transaction) what stays created. */
  failure(err: unknown, atomic: boolean): Error {
    const message = err instanceof Error ? err.message : String(err);
    const wrapped = new PennonError(isPennonError(err) ? err.kind : 'internal', `${this.doing}: ${message}`, { cause: err });
    if (atomic) return wrapped;
    return new PartialImportError({ ...this.created }, [...this.result.dropped], wrapped);
  }
}
