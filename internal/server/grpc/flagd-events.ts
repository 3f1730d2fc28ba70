import { constants as http2, type ServerHttp2Stream } from 'node:http2';
import { status as GrpcStatus, type ServerWritableStream } from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import type { LiveHub, LiveSubscriber } from '../../live';
import { changedFlags, type SnapshotUpdate } from '../../snapshots';
import { ofrepNamespace } from '../../wire';
import type { FlagSources } from '../sources';
import type { CallSpec, DescribeError, Streamer } from './calls';
import { encodeMessage } from './codec';

/**
 * flagd's EventStream over the LiveHub: `provider_ready` on connect, then a
 * `configuration_change` naming the flags each new revision of the followed namespace changed
 * (`{flags: {<key>: {type: "write" | "update" | "delete"}}}`, as flagd's: the providers drop
 * those keys from their cache and emit PROVIDER_CONFIGURATION_CHANGED with them), and
 * `keep_alive` on the hub's heartbeat (flagd's own; the providers ignore it). The namespace and
 * environment are the resolves' (the same metadata). Messages are encoded here, once per update
 * for every stream that follows it (v1 and v2 events are the same bytes).
 *
 * What a client does not read stays bounded: with more than `maxBufferedBytes` written and not
 * yet taken by the connection when the next message comes, the stream is reset (RST_STREAM, ENHANCE_YOUR_CALM: the client sees
 * RESOURCE_EXHAUSTED and reconnects) and its slot freed; the other streams never wait on it. At
 * shutdown (`live.close()`) each stream ends with trailers — status UNAVAILABLE, not a reset and
 * not OK: the JavaScript providers reconnect (and clear their cache) on an error status only, and
 * a stream that ended OK would leave them caching with nobody to tell them of changes.
 */

type Json = Record<string, unknown>;

export interface EventStreamOptions {
  spec: CallSpec;
  describe: DescribeError;
  sources: FlagSources;
  live: LiveHub;
  maxBufferedBytes: number;
  /** EventStreamResponse (either generation's: the same fields). */
  events: protobuf.Type;
}

/** Why a stream's message was sent: what flagd calls the change of each flag. */
function changeData(update: SnapshotUpdate): Json | null {
  const keys = changedFlags(update);
  if (keys.length === 0) return null;
  const flags: Json = {};
  for (const key of keys) {
    const type = !update.previous.flags.has(key) ? 'write' : update.snapshot.flags.has(key) ? 'update' : 'delete';
    flags[key] = { type };
  }
  return { flags };
}

/**
 * The HTTP/2 stream under a grpc-js server call, to reset it: grpc-js offers no way to end a
 * call whose data the peer does not take (its status waits behind that data). Its field is
 * private to grpc-js (pinned in package.json; flagd-streams.test.ts fails without it); without
 * it a stalled stream ends with an error status instead, behind its backlog, which stays bounded
 * as nothing more is written.
 */
function http2StreamOf(call: ServerWritableStream<Json, unknown>): ServerHttp2Stream | null {
  const stream = (call as unknown as { call?: { stream?: ServerHttp2Stream } }).call?.stream;
  return stream && typeof stream.close === 'function' ? stream : null;
}

export function eventStreamer(options: EventStreamOptions): Streamer {
  const { live, sources, maxBufferedBytes, events } = options;
  const ready = encodeMessage(events, { type: 'provider_ready', data: {} });
  const keepAlive = encodeMessage(events, { type: 'keep_alive' });
  // One encoding per update, whoever follows it (the hub hands every subscriber the same object).
  const encoded = new WeakMap<SnapshotUpdate, Buffer | null>();
  const changeMessage = (update: SnapshotUpdate): Buffer | null => {
    let bytes = encoded.get(update);
    if (bytes === undefined) {
      const data = changeData(update);
      bytes = data ? encodeMessage(events, { type: 'configuration_change', data }) : null;
      encoded.set(update, bytes);
    }
    return bytes;
  };

  return {
    spec: options.spec,
    describe: options.describe,
    open({ headers }, call) {
      // Refusals (an unknown environment, the streams' limit, shutting down) throw before
      // anything is written: the call's status is theirs.
      const source = sources.of(headers);
      let settle!: (code: number) => void;
      const ended = new Promise<number>((resolve) => (settle = resolve));
      let open = true;
      let queued = 0;
      const close = (code: number) => {
        if (!open) return false;
        open = false;
        unsubscribe();
        settle(code);
        return true;
      };
      const write = (bytes: Buffer) => {
        if (!open) return;
        // What earlier messages left untaken: a message is in flight until the connection takes
        // it (the callback), so one larger than the bound is always let through on its own.
        if (queued > maxBufferedBytes) return drop();
        queued += bytes.length;
        call.write(bytes, () => {
          queued -= bytes.length;
        });
      };
      const drop = () => {
        if (!close(GrpcStatus.RESOURCE_EXHAUSTED)) return;
        const stream = http2StreamOf(call);
        if (stream) stream.close(http2.NGHTTP2_ENHANCE_YOUR_CALM);
        else call.emit('error', { code: GrpcStatus.RESOURCE_EXHAUSTED, details: 'the client did not read its events; reconnect' });
      };
      const subscriber: LiveSubscriber = {
        update(update) {
          const bytes = changeMessage(update);
          if (bytes) write(bytes);
        },
        heartbeat: () => write(keepAlive),
        end() {
          if (close(GrpcStatus.UNAVAILABLE)) call.emit('error', { code: GrpcStatus.UNAVAILABLE, details: 'the server is shutting down; reconnect' });
        },
      };
      const unsubscribe = live.subscribe(source, ofrepNamespace(headers), subscriber);
      // The client went away (cancelled, its deadline, its connection): its slot is freed at
      // once — also when that happened while the gate was checking its token, before these
      // listeners were there to hear it.
      call.once('cancelled', () => close(GrpcStatus.CANCELLED));
      call.once('close', () => close(GrpcStatus.OK));
      call.on('error', () => close(GrpcStatus.UNKNOWN));
      if (call.cancelled) close(GrpcStatus.CANCELLED);
      else write(ready);
      return ended;
    },
  };
}
