import { afterEach, beforeEach, expect } from 'vitest';
import { loadConfig } from '../../internal/config';
import { PennonError, type ErrorKind } from '../../internal/core';
import { compose } from '../../internal/service/compose';
import type {
  ConstraintInput,
  Connection,
  FlagCreateInput,
  FlagUpdateInput,
  RuleInput,
  SegmentInput,
  Store,
  VariantInput,
} from '../../internal/storage';
import { backends, type Backend } from './backends';

/**
 * A store over a fresh, empty database of a back end (SQLite unless told), schema prepared, opened
 * as the CLI opens one (compose, database `prepared`); plus the inputs and checks the storage
 * and import/export suites share.
 */
export interface TestStore {
  connection: Connection;
  store: Store;
  /** Closes the store and drops its database. */
  close(): Promise<void>;
}

export async function openTestStore(backend: Backend = backends()[0]): Promise<TestStore> {
  const db = await backend.create();
  try {
    const { config } = loadConfig({ env: { PENNON_DB_URL: db.url } });
    const { connection, store, close } = await compose(config, { only: 'database', database: 'prepared' });
    return {
      connection,
      store,
      async close() {
        await close();
        await db.cleanup();
      },
    };
  } catch (err) {
    await db.cleanup();
    throw err;
  }
}

/** A fresh store for every test of the enclosing suite: read `t.store` and `t.connection` inside tests. */
export function useStore(backend: Backend = backends()[0]): Omit<TestStore, 'close'> {
  const fixture = {} as Omit<TestStore, 'close'>;
  let current: TestStore | undefined;
  beforeEach(async () => {
    current = await openTestStore(backend);
    fixture.connection = current.connection;
    fixture.store = current.store;
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return fixture;
}

/** Awaits a promise that must reject with a PennonError of the given kind and exact message. */
export async function expectPennonError(promise: Promise<unknown>, kind: ErrorKind, message: string | RegExp): Promise<PennonError> {
  const outcome = await promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected a PennonError (${kind}: ${String(message)}), got a result: ${JSON.stringify(outcome.value)}`);
  const err = outcome.error;
  expect(err, `expected a PennonError, got ${String(err)}`).toBeInstanceOf(PennonError);
  const pennon = err as PennonError;
  expect({ kind: pennon.kind, message: pennon.message }).toEqual({
    kind,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  });
  return pennon;
}

export const ALL = { limit: 0, offset: 0 } as const;

export function flagInput(key: string, overrides: Partial<FlagCreateInput> = {}): FlagCreateInput {
  return {
    key,
    name: `Flag ${key}`,
    description: `about ${key}`,
    enabled: true,
    type: 'VARIANT_FLAG_TYPE',
    metadata: null,
    ...overrides,
  };
}

export function flagUpdate(overrides: Partial<FlagUpdateInput> = {}): FlagUpdateInput {
  return { name: 'Renamed', description: 'changed', enabled: false, defaultVariantId: '', metadata: undefined, ...overrides };
}

export function variantInput(key: string, overrides: Partial<VariantInput> = {}): VariantInput {
  return { key, name: `Variant ${key}`, description: '', attachment: '', ...overrides };
}

export function segmentInput(overrides: Partial<SegmentInput> = {}): SegmentInput {
  return { name: 'Segment', description: '', matchType: 'ALL_MATCH_TYPE', ...overrides };
}

export function constraintInput(overrides: Partial<ConstraintInput> = {}): ConstraintInput {
  return { type: 'STRING_COMPARISON_TYPE', property: 'region', operator: 'eq', value: 'eu', description: '', ...overrides };
}

export function ruleInput(...segmentKeys: string[]): RuleInput {
  return { segmentKeys, segmentOperator: segmentKeys.length > 1 ? 'AND_SEGMENT_OPERATOR' : 'OR_SEGMENT_OPERATOR' };
}

/** A flag with the given variants and one segment `seg`, ready for rules. */
export async function flagWithSegment(store: Store, ns: string, flagKey: string, variantKeys: string[] = []) {
  const flag = await store.createFlag(ns, flagInput(flagKey));
  const variants = [];
  for (const key of variantKeys) variants.push(await store.createVariant(ns, flagKey, variantInput(key)));
  const segment = await store.getSegment(ns, 'seg').catch(() => store.createSegment(ns, 'seg', segmentInput()));
  return { flag, variants, segment };
}

/** Rule ids of a flag in rank order, and their ranks. */
export async function ruleRanks(store: Store, ns: string, flagKey: string): Promise<{ ids: string[]; ranks: number[] }> {
  const page = await store.listRules(ns, flagKey, ALL);
  return { ids: page.items.map((r) => r.id), ranks: page.items.map((r) => r.rank) };
}

export async function rolloutRanks(store: Store, ns: string, flagKey: string): Promise<{ ids: string[]; ranks: number[] }> {
  const page = await store.listRollouts(ns, flagKey, ALL);
  return { ids: page.items.map((r) => r.id), ranks: page.items.map((r) => r.rank) };
}

export const oneTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

/** A small deterministic PRNG (mulberry32), so that failures reproduce. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
