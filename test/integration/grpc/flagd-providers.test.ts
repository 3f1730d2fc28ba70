import { FlagdProvider } from '@openfeature/flagd-provider';
import { ErrorCode, OpenFeature, ProviderEvents, StandardResolutionReasons, type Client, type EventDetails } from '@openfeature/server-sdk';
import { FlagdProvider as FlagdV1Provider } from 'flagd-provider-v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_ATTACHMENT, Seeder, findEntity, seedClientFixture, thresholdValue, variantBucket } from '../../support/client-fixture';
import { expectStatus, startServer, useServer, type TestServer } from '../../support/server';

/**
 * The OpenFeature flagd providers, unchanged, in RPC mode against Pennon's gRPC port: 0.16.1
 * (flagd.evaluation.v2) and 0.13.4 (flagd.evaluation.v1), side by side, with their LRU cache on
 * (their default), over the client fixture (test/support/client-fixture.ts) in `default` — the
 * JavaScript providers send no metadata of their own, so the namespace is `default`; other
 * namespaces, authentication and the stream's limits are in flagd-raw.test.ts and
 * flagd-streams.test.ts.
 */

const LOW_50 = findEntity((id) => variantBucket('flag1', id) < 500);
const HIGH_50 = findEntity((id) => variantBucket('flag1', id) >= 500);
const UNDER_THRESHOLD = findEntity((id) => thresholdValue('flag_boolean', id) < 50);
const OVER_THRESHOLD = findEntity((id) => thresholdValue('flag_boolean', id) >= 50);

const server = useServer();

const GENERATIONS = ['v2', 'v1'] as const;
type Generation = (typeof GENERATIONS)[number];
const clients = {} as Record<Generation, Client>;

beforeAll(async () => {
  await seedClientFixture(server.api);
  const s = new Seeder(server.api, 'default');
  await s.variantFlag('flag_rules_default', { variants: [{ key: 'a' }, { key: 'b' }], defaultVariant: 'b', rules: [{ segment: 'segment1', distributions: [['a', 100]] }] });
  await s.booleanFlag('flag_boolean_static', true, []);
  await s.variantFlag('cached_flag', { variants: [{ key: 'before' }, { key: 'after' }], defaultVariant: 'before' });
  const options = { host: '127.0.0.1', port: server.service.grpcPort, tls: false, resolverType: 'rpc', cache: 'lru' } as const;
  await OpenFeature.setProviderAndWait('flagd-v2', new FlagdProvider(options));
  await OpenFeature.setProviderAndWait('flagd-v1', new FlagdV1Provider(options));
  clients.v2 = OpenFeature.getClient('flagd-v2');
  clients.v1 = OpenFeature.getClient('flagd-v1');
});
afterAll(async () => {
  await OpenFeature.close();
});

describe.each(GENERATIONS)('flagd provider, evaluation %s', (generation) => {
  const client = () => clients[generation];
  // v1 has no "no value": where no variant answered, it carries the zero value; v2 leaves it
  // out and the provider answers the code's default.
  const noValue = <T>(codeDefault: T, zero: T) => (generation === 'v2' ? codeDefault : zero);

  it('boolean flags: TARGETING_MATCH for a segment rollout, SPLIT for a threshold, DEFAULT and STATIC for the flag value', async () => {
    const segment = await client().getBooleanDetails('flag_boolean', false, { targetingKey: 'user-1', fizz: 'buzz' });
    expect(segment).toMatchObject({ value: true, variant: 'true', reason: StandardResolutionReasons.TARGETING_MATCH, flagMetadata: { segments: 'segment1' } });
    expect(segment.errorCode).toBeUndefined();
    expect(await client().getBooleanDetails('flag_boolean', false, { targetingKey: UNDER_THRESHOLD })).toMatchObject({ value: true, reason: StandardResolutionReasons.SPLIT });
    // flag_boolean is disabled: a boolean flag's enabled is its value (Flipt), not a kill switch.
    expect(await client().getBooleanDetails('flag_boolean', true, { targetingKey: OVER_THRESHOLD })).toMatchObject({ value: false, variant: 'false', reason: 'DEFAULT' });
    expect(await client().getBooleanDetails('flag_boolean_on', true, { targetingKey: 'vip-user' })).toMatchObject({ value: false, reason: 'TARGETING_MATCH' });
    const fixed = await client().getBooleanDetails('flag_boolean_static', false, { targetingKey: 'user-1' });
    expect(fixed.value).toBe(true);
    expect([StandardResolutionReasons.STATIC, StandardResolutionReasons.CACHED]).toContain(fixed.reason);
  });

  it('variant flags as strings: the variant key, with the rule that answered, the split, the default variant', async () => {
    const match = await client().getStringDetails('flag1', 'code-default', { targetingKey: 'user-1', fizz: 'buzz' });
    expect(match).toMatchObject({ value: 'variant1', variant: 'variant1', reason: 'TARGETING_MATCH', flagMetadata: { segments: 'segment1', attachment: '{"v":1}' } });
    expect(await client().getStringDetails('flag1', 'code-default', { targetingKey: LOW_50 })).toMatchObject({ value: 'variant1', reason: 'SPLIT' });
    expect(await client().getStringDetails('flag1', 'code-default', { targetingKey: HIGH_50 })).toMatchObject({ value: 'variant2', reason: 'SPLIT' });
    expect(await client().getStringDetails('flag_rules_default', 'code-default', { targetingKey: 'user-1' })).toMatchObject({ value: 'b', variant: 'b', reason: 'DEFAULT' });
    // No rules: the same answer for everyone, which the providers may cache.
    const fixed = await client().getStringDetails('flag_default_variant', 'code-default', { targetingKey: 'user-1' });
    expect(fixed.value).toBe('dv_default');
    expect(['STATIC', 'CACHED']).toContain(fixed.reason);
  });

  it('no variant: DEFAULT when nothing matched and there is no default variant, DISABLED for a disabled flag', async () => {
    const none = await client().getStringDetails('flag_any', 'code-default', { targetingKey: 'user-1', age: '12' });
    expect(none).toMatchObject({ value: noValue('code-default', ''), reason: 'DEFAULT' });
    expect(none.errorCode).toBeUndefined();
    const disabled = await client().getStringDetails('flag_disabled', 'code-default', { targetingKey: 'user-1' });
    expect(disabled).toMatchObject({ value: noValue('code-default', ''), reason: StandardResolutionReasons.DISABLED });
    expect(disabled.errorCode).toBeUndefined();
  });

  it('context values of any JSON type are read as OFREP reads them (numbers and booleans as text)', async () => {
    expect(await client().getStringValue('flag_any', 'd', { targetingKey: 'user-1', age: 33 })).toBe('any_match');
    expect(await client().getStringValue('flag_any', 'd', { targetingKey: 'user-1', beta: true })).toBe('any_match');
    expect(await client().getStringValue('flag_entity', 'd', { targetingKey: 'vip-user', nested: { x: [1, 2] } })).toBe('vip');
  });

  it('objects: the variant attachment, {} for a variant without one; numbers: a numeric variant key', async () => {
    expect(await client().getObjectDetails('flag_json', {}, { targetingKey: 'user-1' })).toMatchObject({ value: JSON_ATTACHMENT, variant: 'json_variant', reason: 'TARGETING_MATCH' });
    expect(await client().getObjectDetails('flag1', { code: 'default' }, { targetingKey: HIGH_50 })).toMatchObject({ value: {}, variant: 'variant2', reason: 'SPLIT' });
    expect(await client().getNumberDetails('flag_number', 0, { targetingKey: 'user-1' })).toMatchObject({ value: 42, variant: '42', reason: 'TARGETING_MATCH' });
  });

  it('errors arrive as OpenFeature error codes: FLAG_NOT_FOUND, TYPE_MISMATCH', async () => {
    const missing = await client().getBooleanDetails('missing', true, { targetingKey: 'user-1' });
    expect(missing).toMatchObject({ value: true, reason: 'ERROR', errorCode: ErrorCode.FLAG_NOT_FOUND, errorMessage: 'FLAG_NOT_FOUND' });
    for (const wrong of [
      await client().getBooleanDetails('flag1', true, { targetingKey: 'user-1' }),
      await client().getStringDetails('flag_boolean', 'x', { targetingKey: 'user-1' }),
      await client().getNumberDetails('flag1', 7, { targetingKey: 'user-1', fizz: 'buzz' }),
    ]) {
      expect(wrong).toMatchObject({ reason: 'ERROR', errorCode: ErrorCode.TYPE_MISMATCH, errorMessage: 'TYPE_MISMATCH' });
    }
  });
});

type Details = { flagsChanged?: string[] } | undefined;

/** The next `event` of `client` that `test` accepts, within `withinMs`. */
function eventOf(client: Client, event: ProviderEvents, test: (details: Details) => boolean = () => true, withinMs = 10_000): Promise<Details> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.removeHandler(event, heard);
      reject(new Error(`no ${event} within ${withinMs} ms`));
    }, withinMs);
    const heard = (details?: EventDetails) => {
      if (!test(details as Details)) return;
      clearTimeout(timer);
      client.removeHandler(event, heard);
      resolve(details as Details);
    };
    client.addHandler(event, heard);
  });
}

/** The next PROVIDER_CONFIGURATION_CHANGED of `client` naming `key`. */
const changeOf = (client: Client, key: string) => eventOf(client, ProviderEvents.ConfigurationChanged, (details) => details?.flagsChanged?.includes(key) === true);

describe('EventStream: a change through the management API', () => {
  it('arrives at both generations as PROVIDER_CONFIGURATION_CHANGED naming the flag, which their caches then drop', async () => {
    for (const generation of GENERATIONS) {
      expect(await clients[generation].getStringDetails('cached_flag', 'x', { targetingKey: 'user-1' })).toMatchObject({ value: 'before', reason: 'STATIC' });
      // The provider's cache now answers: the proof that the change below had to reach it.
      expect(await clients[generation].getStringDetails('cached_flag', 'x', { targetingKey: 'user-2' })).toMatchObject({ value: 'before', reason: 'CACHED' });
    }
    const heard = GENERATIONS.map((generation) => changeOf(clients[generation], 'cached_flag'));
    const flag = expectStatus(await server.api.get('/api/v1/namespaces/default/flags/cached_flag'), 200);
    const after = flag.variants.find((v: { key: string }) => v.key === 'after').id;
    expectStatus(await server.api.put('/api/v1/namespaces/default/flags/cached_flag', { name: flag.name, enabled: true, defaultVariantId: after }), 200);
    for (const details of await Promise.all(heard)) expect(details?.flagsChanged).toEqual(['cached_flag']);
    for (const generation of GENERATIONS) {
      expect(await clients[generation].getStringDetails('cached_flag', 'x', { targetingKey: 'user-1' })).toMatchObject({ value: 'after', variant: 'after', reason: 'STATIC' });
    }
  });

  it('a deleted flag is named too, and is then not found', async () => {
    const heard = GENERATIONS.map((generation) => changeOf(clients[generation], 'flag_boolean_static'));
    expectStatus(await server.api.delete('/api/v1/namespaces/default/flags/flag_boolean_static'), 200);
    await Promise.all(heard);
    for (const generation of GENERATIONS) {
      expect(await clients[generation].getBooleanDetails('flag_boolean_static', false, { targetingKey: 'user-1' })).toMatchObject({ errorCode: 'FLAG_NOT_FOUND' });
    }
  });
});

describe('a Pennon restart', () => {
  let first: TestServer | undefined;
  let second: TestServer | undefined;
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
  });

  it("ends the providers' streams with an error status: they go STALE, drop their cache, and reconnect to the next server", async () => {
    first = await startServer();
    const port = first.service.grpcPort;
    await new Seeder(first.api, 'default').variantFlag('fixed', { variants: [{ key: 'first' }, { key: 'second' }], defaultVariant: 'first' });
    // A short backoff: the providers wait that long before reconnecting after an error status.
    const options = { host: '127.0.0.1', port, tls: false, resolverType: 'rpc', cache: 'lru', retryBackoffMaxMs: 200 } as const;
    const providers = { v2: new FlagdProvider(options), v1: new FlagdV1Provider(options) };
    const restarted = {} as Record<Generation, Client>;
    try {
      for (const generation of GENERATIONS) {
        await OpenFeature.setProviderAndWait(`restart-${generation}`, providers[generation]);
        restarted[generation] = OpenFeature.getClient(`restart-${generation}`);
        await restarted[generation].getStringValue('fixed', 'x', { targetingKey: 'user-1' });
        expect((await restarted[generation].getStringDetails('fixed', 'x', { targetingKey: 'user-1' })).reason).toBe('CACHED');
      }
      const stale = GENERATIONS.map((generation) => eventOf(restarted[generation], ProviderEvents.Stale));
      expect((await first.stop()).cut).toBe(0);
      first = undefined;
      await Promise.all(stale);

      const ready = GENERATIONS.map((generation) => eventOf(restarted[generation], ProviderEvents.Ready));
      second = await startServer({ PENNON_SERVER_GRPC_PORT: String(port) });
      await new Seeder(second.api, 'default').variantFlag('fixed', { variants: [{ key: 'first' }, { key: 'second' }], defaultVariant: 'second' });
      await Promise.all(ready);
      for (const generation of GENERATIONS) {
        // Not the cached answer of the server that went away.
        expect(await restarted[generation].getStringDetails('fixed', 'x', { targetingKey: 'user-1' })).toMatchObject({ value: 'second', reason: 'STATIC' });
      }
    } finally {
      await Promise.all(Object.values(providers).map((provider) => provider.onClose()));
    }
  }, 30_000);
});
