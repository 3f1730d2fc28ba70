import { setImmediate as nextTurn } from 'node:timers/promises';
import protobuf from 'protobufjs';
import type { CompiledNamespace } from '../../evaluation';
import { PerSnapshotAndGate, snapshotFlagSlices } from '../routes/snapshot-json';
import { encodeMessage } from './codec';

/**
 * DataService's answer, `EvaluationNamespaceSnapshot`, as bytes: the same flags as the HTTP
 * snapshot's JSON, encoded a slice of flags per turn of the event loop — 10,000 flags encode to
 * ~50 MB, which in one piece would hold evaluations for seconds — and kept per snapshot and
 * version gate, as the HTTP bodies are (routes/snapshot-body.ts).
 */

/** Flags encoded per turn of the event loop. */
const FLAGS_PER_SLICE = 25;
/** `flags` (field 2) and `namespace` (field 1), length-delimited: (field << 3) | 2. */
const NAMESPACE_TAG = (1 << 3) | 2;
const FLAG_TAG = (2 << 3) | 2;

export class SnapshotMessages {
  private readonly cache = new PerSnapshotAndGate<Buffer>();
  private readonly namespaceType: protobuf.Type;
  private readonly flagType: protobuf.Type;

  constructor(root: protobuf.Root) {
    this.namespaceType = root.lookupType('flipt.evaluation.EvaluationNamespace');
    this.flagType = root.lookupType('flipt.evaluation.EvaluationFlag');
  }

  of(snapshot: CompiledNamespace, acceptVersion: string | undefined): Promise<Buffer> {
    return this.cache.of(snapshot, acceptVersion, () => this.build(snapshot, acceptVersion));
  }

  private async build(snapshot: CompiledNamespace, acceptVersion: string | undefined): Promise<Buffer> {
    const writer = protobuf.Writer.create();
    writer.uint32(NAMESPACE_TAG).bytes(this.namespaceType.encode({ key: snapshot.key }).finish());
    for (const slice of snapshotFlagSlices(snapshot, acceptVersion, FLAGS_PER_SLICE)) {
      for (const flag of slice) writer.uint32(FLAG_TAG).bytes(encodeMessage(this.flagType, flag));
      await nextTurn();
    }
    return Buffer.from(writer.finish());
  }
}
