import { PennonError, isPennonError } from '../core';
import type { ListParams, ReadStore, WriteStore } from '../storage';
import { decodeDocuments, type DecodeOptions, type DecodedStream } from './decode';
import { namespaceKeyOf } from './document';
import { PartialImportError, totalOf, zeroCounts, type ImportCounts } from './errors';
import { droppedState, planImport, type ExistingState, type ImportPlan, type PlanOptions } from './plan';

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
    const existing = options.drop ? droppedState() : await readExistingState(t, namespacesOf(stream));
    const plan = planImport(stream, existing, options);
    return applyPlan(t, plan, options);
  };
  return target.transaction ? target.transaction(run) : run(target);
}

/** The namespaces a stream writes to, in order of first mention. */
export function namespacesOf(stream: DecodedStream): string[] {
  return [...new Set(stream.documents.map(namespaceKeyOf))];
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
  const created = zeroCounts();
  const total = totalOf(plan.counts);
  let done = 0;
  const made = (kind: keyof ImportCounts) => {
    created[kind]++;
    done++;
    options.onProgress?.({ done, total, created });
  };
  const result: ImportResult = { created, skipped: { flags: [], segments: [] }, dropped: [] };
  let doing = '';
  const step = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    doing = what;
    return fn();
  };

  try {
    if (options.drop) {
      const namespaces = await step('listing namespaces', () => t.listNamespaces(ALL));
      for (const ns of namespaces.items) {
        await step(`deleting namespace "${ns.key}"`, () => t.deleteNamespace(ns.key, true));
        result.dropped.push(ns.key);
      }
      await step('creating namespace "default"', () => t.createNamespace({ key: 'default', name: 'Default', description: 'Default namespace' }));
    }

    for (const doc of plan.documents) {
      const ns = doc.namespace;
      for (const key of doc.skipped.flags) result.skipped.flags.push(`${ns}/${key}`);
      for (const key of doc.skipped.segments) result.skipped.segments.push(`${ns}/${key}`);
      if (doc.createNamespace) {
        const input = doc.createNamespace;
        await step(`creating namespace "${ns}"`, () => t.createNamespace(input));
        made('namespaces');
      }

      if (t.createBatch) {
        // One bulk write per document: a few multi-row statements instead of ~40 per flag.
        const batch = { flags: doc.flags, segments: doc.segments };
        await step(`writing namespace "${ns}"`, () => t.createBatch!(ns, batch));
        for (const f of doc.flags) {
          made('flags');
          for (let i = 0; i < f.variants.length; i++) made('variants');
          for (const r of f.rules) {
            made('rules');
            for (let i = 0; i < r.distributions.length; i++) made('distributions');
          }
          for (let i = 0; i < f.rollouts.length; i++) made('rollouts');
        }
        for (const seg of doc.segments) {
          made('segments');
          for (let i = 0; i < seg.constraints.length; i++) made('constraints');
        }
        continue;
      }

      const variantIds = new Map<string, string[]>();
      for (const flag of doc.flags) {
        const ref = `"${ns}/${flag.input.key}"`;
        await step(`creating flag ${ref}`, () => t.createFlag(ns, flag.input));
        made('flags');
        const ids: string[] = [];
        for (const variant of flag.variants) {
          ids.push((await step(`creating variant "${variant.key}" of flag ${ref}`, () => t.createVariant(ns, flag.input.key, variant))).id);
          made('variants');
        }
        variantIds.set(flag.input.key, ids);
        if (flag.defaultVariant !== null) {
          const { name, description, enabled } = flag.input;
          const defaultVariantId = ids[flag.defaultVariant];
          await step(`setting the default variant of flag ${ref}`, () =>
            t.updateFlag(ns, flag.input.key, { name, description, enabled, defaultVariantId, metadata: undefined }),
          );
        }
      }

      for (const segment of doc.segments) {
        const ref = `"${ns}/${segment.key}"`;
        await step(`creating segment ${ref}`, () => t.createSegment(ns, segment.key, segment.input));
        made('segments');
        for (const [i, constraint] of segment.constraints.entries()) {
          await step(`creating constraint ${i + 1} of segment ${ref}`, () => t.createConstraint(ns, segment.key, constraint));
          made('constraints');
        }
      }

      for (const flag of doc.flags) {
        const key = flag.input.key;
        const ids = variantIds.get(key)!;
        for (const [i, rule] of flag.rules.entries()) {
          // The flag is new: appending at i + 1 keeps the planned order with no re-ranking.
          const label = `rule ${i + 1} of flag "${ns}/${key}"`;
          const created = await step(`creating ${label}`, () => t.createRule(ns, key, i + 1, rule.input));
          made('rules');
          for (const d of rule.distributions) {
            await step(`creating a distribution of ${label}`, () => t.createDistribution(ns, key, created.id, { variantId: ids[d.variant], rollout: d.rollout }));
            made('distributions');
          }
        }
        for (const [i, rollout] of flag.rollouts.entries()) {
          await step(`creating rollout ${i + 1} of flag "${ns}/${key}"`, () => t.createRollout(ns, key, i + 1, rollout));
          made('rollouts');
        }
      }
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const wrapped = new PennonError(isPennonError(err) ? err.kind : 'internal', `${doing}: ${message}`, { cause: err });
    if (atomic) throw wrapped;
    throw new PartialImportError({ ...created }, [...result.dropped], wrapped);
  }
  return result;
}
