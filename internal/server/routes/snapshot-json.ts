import { createHash } from 'node:crypto';
import type { CompiledFlag, CompiledNamespace, CompiledSegment } from '../../evaluation';
import { float32, timestamp } from '../../wire';

/**
 * The client-side SDKs' snapshot in Flipt's `EvaluationNamespaceSnapshot` JSON: a namespace's
 * flags, each rule emitted once (Flipt v1 repeats a rule once per segment), as gated by the
 * client's `x-flipt-accept-server-version`. Written a slice of flags at a time (snapshot-body.ts).
 */

const MATCH = { ALL_MATCH_TYPE: 'ALL_SEGMENT_MATCH_TYPE', ANY_MATCH_TYPE: 'ANY_SEGMENT_MATCH_TYPE' } as const;

/** `x-flipt-accept-server-version` gates: below 1.38.0 no ENTITY_ID constraints, below 1.47.0 no default variant. */
function gateOf(header: string | undefined): { entityId: boolean; defaultVariant: boolean; key: string } {
  const [major = 1, minor = 37] = (header ?? '1.37.1').replace(/^v/, '').split('.').map((n) => Number.parseInt(n, 10));
  const atLeast = (ma: number, mi: number) => major > ma || (major === ma && minor >= mi);
  const entityId = atLeast(1, 38);
  const defaultVariant = atLeast(1, 47);
  return { entityId, defaultVariant, key: `${entityId}:${defaultVariant}` };
}

function segmentJson(s: CompiledSegment, gate: { entityId: boolean }) {
  return {
    key: s.key,
    name: '',
    description: '',
    matchType: MATCH[s.matchType],
    constraints: s.constraints.map((c) => ({
      id: c.id,
      type:
        c.type === 'ENTITY_ID_COMPARISON_TYPE' && !gate.entityId
          ? 'UNKNOWN_CONSTRAINT_COMPARISON_TYPE'
          : c.type.replace('_COMPARISON_TYPE', '_CONSTRAINT_COMPARISON_TYPE'),
      property: c.property,
      operator: c.operator,
      value: c.value,
    })),
  };
}

/** A flag's first fields, before its timestamps. */
function flagHead(f: CompiledFlag) {
  return { key: f.key, name: f.name, description: f.description, enabled: f.enabled, type: f.type };
}

/** A flag's fields after its timestamps: how it evaluates. */
function flagTail(f: CompiledFlag, gate: ReturnType<typeof gateOf>) {
  const isVariant = f.type === 'VARIANT_FLAG_TYPE';
  return {
    rules: isVariant
      ? f.rules.map((r) => ({
          id: r.id,
          segments: r.segments.map((s) => segmentJson(s, gate)),
          rank: r.rank,
          segmentOperator: r.segmentOperator,
          distributions: r.distributions.map((d) => ({
            id: '',
            ruleId: '',
            variantId: d.variantId,
            variantKey: d.variantKey,
            variantAttachment: d.variantAttachment,
            rollout: float32(d.rollout),
          })),
        }))
      : [],
    rollouts: isVariant
      ? []
      : f.rollouts.map((r) => ({
          type: r.type,
          rank: r.rank,
          ...(r.threshold && { threshold: { percentage: float32(r.threshold.percentage), value: r.threshold.value } }),
          ...(r.segment && {
            segment: {
              value: r.segment.value,
              segmentOperator: r.segment.segmentOperator,
              segments: r.segment.segments.map((s) => segmentJson(s, gate)),
            },
          }),
        })),
    ...(isVariant && f.defaultVariant && gate.defaultVariant && { defaultVariant: { ...f.defaultVariant } }),
  };
}

function flagJson(f: CompiledFlag, gate: ReturnType<typeof gateOf>) {
  return { ...flagHead(f), createdAt: timestamp(f.createdAt), updatedAt: timestamp(f.updatedAt), ...flagTail(f, gate) };
}

/**
 * A flag's JSON text (exactly `JSON.stringify(flagJson(…))`) in three pieces: `head` and
 * `tail` are everything but the two timestamps, which is what Flipt v2's digest hashes (below).
 */
function flagText(f: CompiledFlag, gate: ReturnType<typeof gateOf>): { head: string; times: string; tail: string } {
  const head = JSON.stringify(flagHead(f));
  const tail = JSON.stringify(flagTail(f, gate));
  const times = `"createdAt":${JSON.stringify(timestamp(f.createdAt))},"updatedAt":${JSON.stringify(timestamp(f.updatedAt))}`;
  // `{…}` and `{…}` joined around the timestamps: the head's closing and the tail's opening brace dropped.
  return { head: head.slice(0, -1), times, tail: tail.slice(1) };
}

/** `{"namespace":…,"flags":[` … `]}`, a slice of flags at a time (see snapshot-body.ts). */
export function* snapshotSlices(snapshot: CompiledNamespace, acceptVersion: string | undefined, flagsPerSlice: number): Generator<string> {
  const gate = gateOf(acceptVersion);
  let out = `{"namespace":${JSON.stringify({ key: snapshot.key })},"flags":[`;
  const flags = snapshot.ordered;
  for (let i = 0; i < flags.length; i++) {
    out += `${i === 0 ? '' : ','}${JSON.stringify(flagJson(flags[i], gate))}`;
    if ((i + 1) % flagsPerSlice === 0) {
      yield out;
      out = '';
    }
  }
  yield `${out}]}`;
}

/** Flipt v2 serves every feature: its snapshots are written as to the newest v1 client. */
export const FLIPT_V2_GATE = '2.0.0';

/**
 * Flipt v2's `EvaluationNamespaceSnapshot`: the same document with `digest` last (its field 3),
 * a slice of flags at a time; `digest` is told the value once the last slice is written. The
 * digest is the SHA-1 of the document before it with every flag's timestamps left out: it says
 * what a client-side SDK evaluates with, so an unchanged namespace keeps it. Flipt's is its flag
 * file's hash, which commits to other namespaces leave alone; Git environments here stamp
 * every object with its commit's time, and a database write that changes nothing but a flag's
 * `updatedAt` changes no evaluation. Keys, values and ids alone make it the same on every
 * instance of one database (or one commit).
 */
export function* digestedSnapshotSlices(snapshot: CompiledNamespace, flagsPerSlice: number, digest: (hex: string) => void): Generator<string> {
  const gate = gateOf(FLIPT_V2_GATE);
  const hash = createHash('sha1');
  let out = `{"namespace":${JSON.stringify({ key: snapshot.key })},"flags":[`;
  hash.update(out);
  const flags = snapshot.ordered;
  for (let i = 0; i < flags.length; i++) {
    const { head, times, tail } = flagText(flags[i], gate);
    const comma = i === 0 ? '' : ',';
    hash.update(`${comma}${head},${tail}`);
    out += `${comma}${head},${times},${tail}`;
    if ((i + 1) % flagsPerSlice === 0) {
      yield out;
      out = '';
    }
  }
  hash.update(']');
  const hex = hash.digest('hex');
  digest(hex);
  yield `${out}],"digest":"${hex}"}`;
}

/** The gate's key: one cached body per snapshot and gate. */
function gateKey(acceptVersion: string | undefined): string {
  return gateOf(acceptVersion).key;
}


/** The flags a slice at a time, each as in the JSON (the gRPC DataService encodes them as messages). */
export function* snapshotFlagSlices(snapshot: CompiledNamespace, acceptVersion: string | undefined, flagsPerSlice: number): Generator<unknown[]> {
  const gate = gateOf(acceptVersion);
  const flags = snapshot.ordered;
  for (let i = 0; i < flags.length; i += flagsPerSlice) yield flags.slice(i, i + flagsPerSlice).map((f) => flagJson(f, gate));
}

/**
 * What is built once per snapshot and version gate (the HTTP bodies, the gRPC message), kept
 * for as long as the snapshot is; a failed build is not remembered.
 */
export class PerSnapshotAndGate<T> {
  private readonly cache = new WeakMap<CompiledNamespace, Map<string, Promise<T>>>();

  of(snapshot: CompiledNamespace, acceptVersion: string | undefined, build: () => Promise<T>): Promise<T> {
    let byGate = this.cache.get(snapshot);
    if (!byGate) this.cache.set(snapshot, (byGate = new Map()));
    const key = gateKey(acceptVersion);
    let built = byGate.get(key);
    if (!built) {
      built = build();
      byGate.set(key, built);
      const gates = byGate;
      built.catch(() => gates.delete(key));
    }
    return built;
  }
}
