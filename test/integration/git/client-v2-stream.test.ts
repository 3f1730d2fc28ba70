import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyoneGets, productionAndStaging } from '../../support/git-fixtures';
import { startGitRemote, type GitRemote } from '../../support/git-remote';
import { openLineStream } from '../../support/line-stream';
import { expectStatus, useServer } from '../../support/server';

/**
 * Issue 19, item 3, with Git environments: Flipt v2's client snapshot and stream name the
 * environment in the path (`default` is the default environment whatever its name). A stream
 * gets a frame when a synced commit changes its namespace, and none for a commit elsewhere
 * (every object is stamped with its commit's time, which the digest leaves out). A real Git
 * remote; polling every hour, so only `requestSync` (what the webhook calls) moves it.
 */


const variantOf = (snapshot: { flags: { key: string; rules: { distributions: { variantKey: string }[] }[] }[] }) =>
  snapshot.flags.find((f) => f.key === 'colour')?.rules[0].distributions[0].variantKey;

describe('Flipt v2 client snapshot and stream on Git environments', () => {
  let remote: GitRemote;
  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit({ 'prod/shop/features.yaml': everyoneGets('shop', 'blue'), 'staging/shop/features.yaml': everyoneGets('shop', 'red') });
  });
  afterAll(async () => {
    await remote?.close();
  });
  const server = useServer(() => productionAndStaging(remote.url));
  const snapshotPath = (env: string) => `/client/v2/environments/${env}/namespaces/shop/snapshot`;
  const snapshotNow = async (env: string) => expectStatus(await server.api.get(snapshotPath(env)), 200);
  const sync = () => server.service.environments!.repositories.get('flags')!.requestSync();

  it('the path names the environment: its snapshot is v1’s from that environment plus the digest; `default` is the default one', async () => {
    const staging = await snapshotNow('staging');
    const v1 = expectStatus(
      await server.api.request('GET', '/internal/v1/evaluation/snapshot/namespace/shop', undefined, { 'x-flipt-environment': 'staging', 'x-flipt-accept-server-version': '1.47.0' }),
      200,
    );
    const { digest, ...content } = staging;
    expect(content).toEqual(v1);
    expect(variantOf(staging)).toBe('red');
    const production = await snapshotNow('production');
    expect(variantOf(production)).toBe('blue');
    expect(await snapshotNow('default')).toEqual(production);
    expect(production.digest).not.toBe(digest);
    // The header does not pick the environment here: the path does.
    const byPath = await server.api.withHeaders({ 'X-Flipt-Environment': 'production' }).get(snapshotPath('staging'));
    expect(byPath.body).toEqual(staging);
    const unknown = await server.api.get(snapshotPath('qa'));
    expect([unknown.status, unknown.body]).toEqual([404, { code: 5, message: 'environment "qa" not found', details: [] }]);
  });

  it('a stream on a named environment gets a frame when a synced commit changes its namespace, none for a commit elsewhere', async () => {
    const stream = await openLineStream(`${server.url}/client/v2/environments/staging/namespaces/shop/stream`);
    try {
      expect(stream.status).toBe(200);
      const first = await stream.next();
      expect(first.result).toEqual(await snapshotNow('staging'));

      remote.commit({ 'staging/shop/features.yaml': everyoneGets('shop', 'green') });
      await sync();
      const second = await stream.next();
      expect(variantOf(second.result)).toBe('green');
      expect(second.result).toEqual(await snapshotNow('staging'));

      // A commit to production only: staging's snapshot is rebuilt at the new commit (new
      // timestamps), its digest is not, and the stream stays quiet.
      const told = server.service.services.live.stats.delivered;
      remote.commit({ 'prod/shop/features.yaml': everyoneGets('shop', 'purple') });
      await sync();
      expect(server.service.services.live.stats.delivered).toBe(told + 1); // told of staging's new snapshot
      expect(variantOf(await snapshotNow('production'))).toBe('purple');
      expect((await snapshotNow('staging')).digest).toBe(second.result.digest);

      remote.commit({ 'staging/shop/features.yaml': everyoneGets('shop', 'yellow') });
      await sync();
      const third = await stream.next();
      expect(variantOf(third.result)).toBe('yellow');
      expect(third.result).toEqual(await snapshotNow('staging'));
      expect(stream.received).toBe(3);
    } finally {
      stream.close();
    }
  });
});
