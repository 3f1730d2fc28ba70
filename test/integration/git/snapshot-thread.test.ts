import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateBoolean, evaluateVariant, type CompiledNamespace } from '../../../internal/evaluation';
import { buildSnapshot, FlagFileError, type EnvironmentSnapshot, type FlagFile, type FlagFileBytes } from '../../../internal/git';
import { threadedSnapshotBuilder } from '../../../internal/service/git-thread';
import { everyoneGets } from '../../support/git-fixtures';
import { startGitRemote, type GitRemote } from '../../support/git-remote';
import { largeDocument } from '../../support/large-document';
import { expectStatus, useServer } from '../../support/server';
import { longestStall } from '../../support/stall';

/**
 * Issue 16, item 1: a Git sync must not hold the event loop. A commit's flag files are read on a
 * thread of their own and sent back a page of flags at a time; the server compiles each page a
 * slice at a time (internal/service/git-thread.ts). The snapshot is the one buildSnapshot makes.
 */

/** 2,000 flags of four rules over 20 segments in one file (2.7 MB): ~1 s to build on one thread. */
const large = (namespace: string) =>
  largeDocument({ flags: 2000, segments: 20, variants: ['a', 'b', 'c'], rollouts: [30, 30, 40], segmentsOf: (i) => [i % 20, (i + 3) % 20, (i + 7) % 20, (i + 11) % 20] }).replace(
    'namespace: default',
    `namespace: ${namespace}`,
  );

const files: FlagFile[] = [
  { path: 'shop/features.yaml', text: large('shop') },
  { path: 'tiny/features.yaml', text: everyoneGets('tiny', 'red') },
  { path: 'more/features.json', text: JSON.stringify({ namespace: 'empty', flags: [] }) },
];

/** What the evaluator answers for every flag of a compiled namespace, for a few entities. */
function answers(compiled: CompiledNamespace): unknown[] {
  const contexts: Record<string, string>[] = [{}, { plan: 'plan-7', age: '30', beta: 'true' }, { plan: 'plan-13', age: '12', beta: 'false' }];
  return compiled.ordered.flatMap((flag) =>
    contexts.map((context, i) => (flag.type === 'BOOLEAN_FLAG_TYPE' ? evaluateBoolean(flag, `user-${i}`, context) : evaluateVariant(flag, `user-${i}`, context))),
  );
}

/** Files as a repository gives them (what the builder takes). */
const bytesOf = (list: FlagFile[]): FlagFileBytes[] => list.map(({ path, text }) => ({ path, bytes: Buffer.from(text) }));

function expectSameSnapshot(actual: EnvironmentSnapshot, expected: EnvironmentSnapshot): void {
  expect(actual.commit).toBe(expected.commit);
  expect([...actual.namespaces.keys()]).toEqual([...expected.namespaces.keys()]);
  for (const [ns, want] of expected.namespaces) {
    const got = actual.namespaces.get(ns)!;
    expect(got.namespace).toEqual(want.namespace);
    expect(got.data).toEqual(want.data);
    expect([got.compiled.key, got.compiled.revision, [...got.compiled.flags.keys()]]).toEqual([want.compiled.key, want.compiled.revision, [...want.compiled.flags.keys()]]);
    expect(answers(got.compiled)).toEqual(answers(want.compiled));
  }
}

describe('Git snapshots built on a thread', () => {
  const build = threadedSnapshotBuilder();

  it('gives the snapshot buildSnapshot gives, without holding the event loop 50 ms', async () => {
    await build(bytesOf([{ path: 'warm/features.yaml', text: everyoneGets('warm', 'red') }]), 'warm-up', 1); // from source the thread's code is bundled on first use

    const inProcess = await longestStall(async () => buildSnapshot(files, 'c0ffee', 1_700_000_000_000_000));
    const threaded = await longestStall(() => build(bytesOf(files), 'c0ffee', 1_700_000_000_000_000));
    console.log(`Git snapshot of 2,002 flags: in-process stall ${inProcess.cpuMs.toFixed(0)} ms of CPU; on a thread ${threaded.cpuMs.toFixed(1)} ms (${threaded.wallMs.toFixed(1)} ms wall), ${threaded.ownMs.toFixed(1)} ms of it the builder's own`);
    expect(inProcess.cpuMs).toBeGreaterThan(200); // the work is large enough for the bound to mean something
    // The builder's own slices. The collector's pauses inside them (a young-generation copy of what
    // the build keeps, 10-40 ms, more on a loaded machine) are the runtime's: issue 16 measures
    // them end to end.
    expect(threaded.ownMs).toBeLessThan(50);
    expectSameSnapshot(threaded.result, inProcess.result);
  }, 60_000);

  it('rejects a bad file with the FlagFileError buildSnapshot throws: the file, the line, what is wrong', async () => {
    const bad: FlagFile[] = [...files, { path: 'broken/features.yaml', text: 'version: "1.6"\nnamespace: broken\nflags:\n  - key: colour\n    nme: typo\n' }];
    const expected = (() => {
      try {
        buildSnapshot(bad, 'bad', 1);
      } catch (err) {
        return err as FlagFileError;
      }
      throw new Error('buildSnapshot accepted a bad file');
    })();
    const err = await build(bytesOf(bad), 'bad', 1).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FlagFileError);
    expect([(err as FlagFileError).file, (err as FlagFileError).message]).toEqual([expected.file, expected.message]);
    expect(expected.message).toMatch(/^broken\/features\.yaml: .*line 5/);
  });
});

describe('a Git sync in the server', () => {
  let remote: GitRemote;
  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit({ 'prod/tiny/features.yaml': everyoneGets('tiny', 'red') });
  });
  afterAll(async () => {
    await remote?.close();
  });
  const server = useServer(() => ({
    PENNON_STORAGE_FLAGS_REMOTE: remote.url,
    PENNON_STORAGE_FLAGS_POLL_INTERVAL: '1h',
    PENNON_ENVIRONMENTS_PRODUCTION_STORAGE: 'flags',
    PENNON_ENVIRONMENTS_PRODUCTION_DIRECTORY: 'prod',
    PENNON_ENVIRONMENTS_PRODUCTION_DEFAULT: 'true',
  }));

  it('reads a commit of 2,000 flags without holding the event loop 50 ms, then serves it', async () => {
    remote.commit({ 'prod/shop/features.yaml': large('shop') });
    const sync = () => server.service.environments!.repositories.get('flags')!.requestSync();
    const { cpuMs, wallMs } = await longestStall(sync);
    console.log(`Git sync of 2,000 flags in the server: longest stall ${cpuMs.toFixed(1)} ms of CPU (${wallMs.toFixed(1)} ms wall)`);
    expect(cpuMs).toBeLessThan(50);
    const answer = expectStatus(await server.api.post('/evaluate/v1/variant', { namespaceKey: 'shop', flagKey: 'flag-1999', entityId: 'u1', context: { plan: 'plan-19', age: '30', beta: 'true' } }), 200);
    expect([answer.reason, answer.segmentKeys]).toEqual(['MATCH_EVALUATION_REASON', ['seg-19']]);
  }, 60_000);

  it('fetches and reads a 24 MB flag file without holding the event loop 50 ms (the Git work runs on a thread)', async () => {
    // A flag file that is large to fetch and inflate but small to build: the cost under test is
    // isomorphic-git's (indexing the fetched pack, inflating the blob), ~75 ms each on this thread.
    const words = Array.from({ length: 4096 }, (_, i) => (i * 2654435761).toString(36));
    const comment = Array.from({ length: 640_000 }, (_, i) => `# ${words[i % 4096]} ${words[(i * 7) % 4096]} ${words[(i * 13) % 4096]} ${i}`).join('\n');
    const text = `${comment}\n${everyoneGets('padded', 'blue')}`;
    expect(text.length).toBeGreaterThan(20_000_000);
    remote.commit({ 'prod/padded/features.yaml': text });
    const sync = () => server.service.environments!.repositories.get('flags')!.requestSync();
    const { cpuMs, wallMs } = await longestStall(sync);
    console.log(`Git sync of a ${(text.length / 1e6).toFixed(0)} MB flag file in the server: longest stall ${cpuMs.toFixed(1)} ms of CPU (${wallMs.toFixed(1)} ms wall)`);
    expect(cpuMs).toBeLessThan(50);
    const answer = expectStatus(await server.api.post('/evaluate/v1/variant', { namespaceKey: 'padded', flagKey: 'colour', entityId: 'u1', context: {} }), 200);
    expect(answer.variantKey).toBe('blue');
  }, 60_000);
});
