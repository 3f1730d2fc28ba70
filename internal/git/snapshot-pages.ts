import type { Namespace, NamespaceData } from '../core';
import { groupByFlag, NamespaceCompiler } from '../evaluation';
import { asText, buildSnapshot, type EnvironmentSnapshot, type FlagFileBytes, type GitNamespace, type NamespaceOfCommit } from './snapshot';

/** Builds an environment's snapshot of a commit; throws (rejects with) FlagFileError for bad files. */
export type SnapshotBuilder = (files: FlagFileBytes[], commit: string, committedAt: number) => Promise<EnvironmentSnapshot>;

/** In this thread, in one piece: what tests and one-off commands use. */
export const buildInProcess: SnapshotBuilder = async (files, commit, committedAt) => buildSnapshot(asText(files), commit, committedAt);

/**
 * A namespace's data in pieces a thread can send one message at a time (each small to receive):
 * whole flags with their rules and rollouts; the first page of a namespace also carries its
 * segments. A namespace without flags is one page.
 */
export interface SnapshotPage {
  namespace: Namespace;
  data: NamespaceData;
}

export function* snapshotPages(namespaces: NamespaceOfCommit[], flagsPerPage: number): Generator<SnapshotPage> {
  for (const { namespace, data } of namespaces) {
    const rules = groupByFlag(data.rules);
    const rollouts = groupByFlag(data.rollouts);
    for (let i = 0; i === 0 || i < data.flags.length; i += flagsPerPage) {
      const flags = data.flags.slice(i, i + flagsPerPage);
      yield {
        namespace,
        data: {
          key: data.key,
          revision: data.revision,
          flags,
          segments: i === 0 ? data.segments : [],
          rules: flags.flatMap((f) => rules.get(f.key) ?? []),
          rollouts: flags.flatMap((f) => rollouts.get(f.key) ?? []),
        },
      };
    }
  }
}

/**
 * The receiving side: pages in the order they were made, compiled a slice of flags at a time with
 * `pause()` between slices, into the snapshot buildSnapshot gives for the same files.
 */
export class SnapshotAssembler {
  private readonly namespaces = new Map<string, { namespace: Namespace; data: NamespaceData; compiler: NamespaceCompiler }>();

  constructor(
    private readonly commit: string,
    private readonly flagsPerSlice: number,
    private readonly pause: () => Promise<unknown>,
  ) {}

  async add(page: SnapshotPage): Promise<void> {
    const { key, revision } = page.data;
    let entry = this.namespaces.get(key);
    if (!entry) {
      entry = { namespace: page.namespace, data: { key, revision, flags: [], segments: [], rules: [], rollouts: [] }, compiler: new NamespaceCompiler(key) };
      this.namespaces.set(key, entry);
    }
    const { data } = entry;
    for (const list of ['flags', 'segments', 'rules', 'rollouts'] as const) for (const item of page.data[list]) (data[list] as unknown[]).push(item);
    await entry.compiler.add(page.data, this.flagsPerSlice, this.pause);
  }

  finish(): EnvironmentSnapshot {
    const namespaces = new Map<string, GitNamespace>();
    for (const [key, { namespace, data, compiler }] of this.namespaces) namespaces.set(key, { namespace, data, compiled: compiler.finish(data.revision) });
    return { commit: this.commit, namespaces };
  }
}
