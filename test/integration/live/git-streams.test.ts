import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyoneGets, productionAndStaging } from '../../support/git-fixtures';
import { startGitRemote, type GitRemote } from '../../support/git-remote';
import { useServer } from '../../support/server';
import { SseClient } from '../../support/sse';

/**
 * OFREP's event streams with flags in Git environments: the bulk answer names the stream of the
 * environment the request named, and a new commit synced sends its streams a
 * refetchEvaluation with the commit as the version (a commit is every namespace's version, so
 * each environment on the storage hears of it).
 */

describe('OFREP event streams on Git environments', () => {
  let remote: GitRemote;
  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit({ 'prod/shop/features.yaml': everyoneGets('shop', 'blue'), 'staging/shop/features.yaml': everyoneGets('shop', 'red') });
  });
  afterAll(async () => {
    await remote?.close();
  });
  const server = useServer(() => productionAndStaging(remote.url));

  async function streamOf(environment: string): Promise<SseClient> {
    const bulk = await fetch(`${server.url}/ofrep/v1/evaluate/flags`, { method: 'POST', headers: { 'x-flipt-namespace': 'shop', 'x-flipt-environment': environment }, body: '{"context":{"targetingKey":"u"}}' });
    const uri = ((await bulk.json()) as { eventStreams: { endpoint: { requestUri: string } }[] }).eventStreams[0].endpoint.requestUri;
    expect(uri).toBe(`/ofrep/v1/_stream/${environment}/shop/events`);
    const stream = new SseClient(`${server.url}${uri}`);
    await stream.opened;
    return stream;
  }

  it('a synced commit reaches the streams of the environment it changed, with the commit as the version', async () => {
    const production = await streamOf('production');
    const staging = await streamOf('staging');
    try {
      const before = await production.next();
      await staging.next();
      const commit = remote.commit({ 'prod/shop/features.yaml': everyoneGets('shop', 'green'), 'staging/shop/features.yaml': everyoneGets('shop', 'red') });
      await server.service.environments!.repositories.get('flags')!.requestSync();
      const event = await production.next(1000);
      expect(event).toMatchObject({ type: 'refetchEvaluation', etag: commit });
      expect(event.etag).not.toBe(before.etag);
      // Staging's namespace moved to the new commit too (a commit is each namespace's version).
      expect((await staging.next(1000)).etag).toBe(commit);
      // An environment not configured is Flipt's 404 (`default` means the default one, as in Flipt v2).
      expect((await fetch(`${server.url}/ofrep/v1/_stream/qa/shop/events`)).status).toBe(404);
    } finally {
      production.close();
      staging.close();
    }
  });
});
