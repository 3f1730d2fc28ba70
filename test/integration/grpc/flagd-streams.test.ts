import { status, type ClientReadableStream, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient } from '../../support/grpc-client';
import { expectStatus, startServer, useServer } from '../../support/server';
import { until } from '../../support/wait';

/**
 * flagd's EventStream as a live stream of the LiveHub: streams.max, heartbeats, the end at
 * shutdown (trailers, not a reset), subscriptions released however a client leaves, and a
 * client that never reads dropped at streams.max_buffered_bytes without holding up the others.
 * Raw @grpc/grpc-js clients from our .proto files.
 */

const V1 = 'flagd.evaluation.v1.Service';
const V2 = 'flagd.evaluation.v2.Service';

interface Event {
  type: string;
  data?: { fields?: Record<string, any> };
}

/** A stream's events as they come, and its end (error or status), each awaitable with a bound. */
class Events {
  readonly seen: Event[] = [];
  readonly ended: Promise<StatusObject>;
  private waiters: (() => void)[] = [];

  constructor(readonly stream: ClientReadableStream<Event>) {
    stream.on('data', (event: Event) => {
      this.seen.push(event);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.ended = new Promise((resolve) => {
      // A failed stream emits 'error' and then 'status'; an OK one 'status' alone.
      stream.on('error', () => undefined);
      stream.on('status', resolve);
    });
  }

  /** The first event from `from` on that satisfies `test`, within `withinMs`. */
  async next(test: (event: Event) => boolean, from = 0, withinMs = 5000): Promise<{ event: Event; index: number }> {
    const deadline = performance.now() + withinMs;
    for (;;) {
      const index = this.seen.findIndex((e, i) => i >= from && test(e));
      if (index >= 0) return { event: this.seen[index], index };
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no matching event within ${withinMs} ms (saw ${this.seen.map((e) => e.type).join(', ')})`);
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  ready() {
    return this.next((e) => e.type === 'provider_ready');
  }
}

const changedKeys = (event: Event) => Object.keys(event.data?.fields?.flags?.structValue?.fields ?? {});

describe('EventStream: streams.max and heartbeats', () => {
  const server = useServer({ PENNON_STREAMS_MAX: '2', PENNON_STREAMS_HEARTBEAT_INTERVAL: '50ms' });
  let grpc: GrpcClient;
  beforeAll(() => {
    grpc = new GrpcClient(server.service.grpcPort);
  });
  afterAll(() => grpc.close());

  it('beyond streams.max a new stream is refused with UNAVAILABLE; a freed slot is taken again; resolves are unaffected', async () => {
    const first = new Events(grpc.stream(`${V1}/EventStream`));
    const second = new Events(grpc.stream(`${V2}/EventStream`));
    await first.ready();
    await second.ready();
    const third = new Events(grpc.stream(`${V2}/EventStream`));
    const refused = await third.ended;
    expect(refused.code).toBe(status.UNAVAILABLE);
    expect(refused.details).toMatch(/limit of 2 streams \(streams\.max\)/);
    expect(await grpc.fails(`${V2}/ResolveBoolean`, { flagKey: 'missing' })).toMatchObject({ code: status.NOT_FOUND });

    first.stream.cancel();
    await first.ended;
    await until(() => server.service.services.live.size === 1, 'the cancelled stream is released');
    const again = new Events(grpc.stream(`${V1}/EventStream`));
    await again.ready();
    // flagd's heartbeat, on the hub's: the providers ignore it, proxies see traffic.
    await again.next((e) => e.type === 'keep_alive');
    again.stream.cancel();
    second.stream.cancel();
    await Promise.all([again.ended, second.ended]);
    await until(() => server.service.services.live.size === 0, 'every stream is released');
  });
});

describe('EventStream: connections that come and go', () => {
  const server = useServer({ PENNON_AUTHENTICATION_REQUIRED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'cycles' });

  it('1,000 connect/cancel cycles over ten namespaces leave no stream and no watch behind', async () => {
    const grpc = new GrpcClient(server.service.grpcPort, 'cycles');
    const live = server.service.services.live;
    const openedBefore = live.stats.opened;
    let readied = 0;
    try {
      // Half are cancelled at once (often while the gate still checks the token), half once ready.
      // "At once" is the next turn of the event loop: grpc-js's client, cancelled in the very turn
      // it starts a call, still sends the call later and never cancels it (a stream the server
      // cannot tell from a live one until the connection closes).
      const cycle = async (i: number) => {
        const events = new Events(grpc.stream(i % 2 ? `${V1}/EventStream` : `${V2}/EventStream`, {}, { 'x-flipt-namespace': `ns-${i % 10}` }));
        if (i % 4 < 2) {
          await events.ready();
          readied++;
        } else await new Promise(setImmediate);
        events.stream.cancel();
        expect((await events.ended).code).toBe(status.CANCELLED);
      };
      for (let batch = 0; batch < 1000; batch += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => cycle(batch + j)));
      await until(() => live.size === 0 && live.watches === 0, `every subscription and watch is released (${live.size} streams, ${live.watches} watches)`, 10_000);
      expect(readied).toBe(500);
      // Every stream that got as far as the hub was counted there, and released.
      expect(live.stats.opened - openedBefore).toBeGreaterThanOrEqual(500);
      expect(live.stats.opened - openedBefore).toBeLessThanOrEqual(1000);
    } finally {
      grpc.close();
    }
  }, 60_000);
});

describe('EventStream: shutdown', () => {
  it('ends every stream with its trailers (UNAVAILABLE: the providers reconnect), not a reset, and the server stops on time', async () => {
    const server = await startServer();
    const grpc = new GrpcClient(server.service.grpcPort);
    try {
      const streams = [new Events(grpc.stream(`${V1}/EventStream`)), new Events(grpc.stream(`${V2}/EventStream`))];
      for (const events of streams) await events.ready();
      const report = await server.stop();
      expect(report.cut).toBe(0);
      for (const events of streams) {
        // A reset would read "Received RST_STREAM…" or "Call cancelled"; these are the server's own words.
        expect(await events.ended).toMatchObject({ code: status.UNAVAILABLE, details: 'the server is shutting down; reconnect' });
      }
    } finally {
      grpc.close();
    }
  });
});

describe('EventStream: a client that never reads', () => {
  const FLAGS = 300;
  const server = useServer({ PENNON_STREAMS_MAX_BUFFERED_BYTES: '1024' });
  let constraintPath: string;
  beforeAll(async () => {
    // Every flag's rule uses segment `all`: each change of its constraint names all 300 flags
    // (about 25 KB an event), so that a stalled client's backlog grows fast.
    const lines = ['version: "1.4"', 'namespace: bulk', 'segments:', '- key: all', '  name: All', '  match_type: ALL_MATCH_TYPE', '  constraints:'];
    lines.push('  - {type: STRING_COMPARISON_TYPE, property: plan, operator: eq, value: v0}', 'flags:');
    for (let i = 0; i < FLAGS; i++) {
      lines.push(`- key: a-flag-with-a-rather-long-key-so-that-events-are-large-${i}`, `  name: F${i}`, '  type: VARIANT_FLAG_TYPE', '  enabled: true', '  variants:', '  - key: on');
      lines.push('  rules:', '  - segment: all', '    distributions:', '    - {variant: on, rollout: 100}');
    }
    expectStatus(await server.api.post('/api/v1/namespaces', { key: 'bulk', name: 'Bulk' }), 200);
    expectStatus(await server.api.request('POST', '/api/v1/namespaces/bulk/import', `${lines.join('\n')}\n`, { 'content-type': 'application/yaml' }), 200);
    const segment = expectStatus(await server.api.get('/api/v1/namespaces/bulk/segments/all'), 200);
    constraintPath = `/api/v1/namespaces/bulk/segments/all/constraints/${segment.constraints[0].id}`;
  }, 60_000);

  it('is dropped once its backlog passes streams.max_buffered_bytes, while another stream hears every change at once', async () => {
    // Each on a connection of its own: HTTP/2 flow control is per connection as well as per stream.
    const own = { 'grpc.use_local_subchannel_pool': 1 };
    const stalled = new GrpcClient(server.service.grpcPort, null, own);
    const reader = new GrpcClient(server.service.grpcPort, null, own);
    const ns = { 'x-flipt-namespace': 'bulk' };
    try {
      const slow = stalled.stream<Event>(`${V2}/EventStream`, {}, ns);
      const slowEnd = new Promise<ServiceError>((resolve) => slow.on('error', resolve));
      await new Promise((resolve) => slow.once('data', resolve));
      slow.pause(); // and never read again
      const fast = new Events(reader.stream(`${V1}/EventStream`, {}, ns));
      await fast.ready();
      expect(server.service.services.live.size).toBe(2);

      let from = 0;
      let changes = 0;
      const slowest = { ms: 0 };
      for (; changes < 200 && server.service.services.live.size === 2; changes++) {
        const started = performance.now();
        expectStatus(await server.api.put(constraintPath, { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: `v${changes + 1}` }), 200);
        const { event, index } = await fast.next((e) => e.type === 'configuration_change', from);
        expect(changedKeys(event)).toHaveLength(FLAGS);
        slowest.ms = Math.max(slowest.ms, performance.now() - started);
        from = index + 1;
      }
      expect(server.service.services.live.size).toBe(1);
      // Some changes went by first: the stalled client's own buffers and HTTP/2 windows filled.
      expect(changes).toBeGreaterThan(1);
      expect(changes).toBeLessThan(200);
      // Its end (reset by the server) reaches it once it reads again.
      slow.resume();
      expect((await slowEnd).code).toBe(status.RESOURCE_EXHAUSTED);
      // The reader was never held up, and still hears the next change.
      expect(slowest.ms).toBeLessThan(2000);
      expectStatus(await server.api.put(constraintPath, { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'last' }), 200);
      await fast.next((e) => e.type === 'configuration_change', from);
      fast.stream.cancel();
      await fast.ended;
    } finally {
      stalled.close();
      reader.close();
    }
  }, 60_000);
});
