import { unavailable } from '../core';
import type { SnapshotUpdate, WatchableSnapshots } from '../snapshots';

/**
 * Every live stream an instance holds — OFREP's SSE, flagd's EventStream, Flipt v2's snapshot
 * stream, the dashboard's — in one place: one watch per (flag source, namespace) however many
 * clients follow it, one limit on streams, one heartbeat timer, one way to end them all.
 * What a stream sends is its transport's business; the hub only says when.
 */

export interface LiveSubscriber {
  /** The namespace moved to another revision (called in order, never twice for one snapshot). */
  update(update: SnapshotUpdate): void;
  /** Nothing changed for a while: keeps the connection open through proxies. */
  heartbeat(): void;
  /** The service is stopping: end the stream cleanly (the client reconnects elsewhere). */
  end(): void;
}

/** A flag source as the hub sees it: its name (the environment; '' for the database) and its snapshots. */
export interface LiveSource {
  name: string;
  snapshots: WatchableSnapshots;
}

interface Channel {
  subscribers: Set<LiveSubscriber>;
  unwatch: () => void;
}

export interface LiveHubOptions {
  /** Streams held at most (every kind together); 0 refuses every stream. */
  maxStreams: number;
  /** Heartbeat period (ms); 0: none. */
  heartbeatMs: number;
  /** Told of a subscriber that threw (a transport's bug must not stop the others' updates). */
  onError: (err: unknown, namespace: string) => void;
}

export class LiveHub {
  private readonly channels = new Map<string, Channel>();
  private held = 0;
  private closing = false;
  private timer: NodeJS.Timeout | undefined;
  /** Streams opened and updates delivered since start, for metrics and tests. */
  readonly stats = { opened: 0, refused: 0, delivered: 0 };

  constructor(private readonly options: LiveHubOptions) {}

  /** Streams held now. */
  get size(): number {
    return this.held;
  }

  /** Watches held now (one per source and namespace followed): what a leak would grow. */
  get watches(): number {
    return this.channels.size;
  }

  /**
   * Follows `ns` of `source` for `subscriber` until the returned function is called (by the
   * transport, when its connection ends). Beyond the limit, or while stopping, throws
   * `unavailable` (503 / UNAVAILABLE): the client retries later or elsewhere.
   */
  subscribe(source: LiveSource, ns: string, subscriber: LiveSubscriber): () => void {
    if (this.closing) throw unavailable('the server is shutting down');
    if (this.held >= this.options.maxStreams) {
      this.stats.refused++;
      throw unavailable(`this instance holds its limit of ${this.options.maxStreams} streams (streams.max); retry later or on another instance`);
    }
    const key = `${source.name}\u0000${ns}`;
    let channel = this.channels.get(key);
    if (!channel) {
      const subscribers = new Set<LiveSubscriber>();
      const unwatch = source.snapshots.watch(ns, (update) => this.deliver(subscribers, update));
      channel = { subscribers, unwatch };
      this.channels.set(key, channel);
    }
    channel.subscribers.add(subscriber);
    this.held++;
    this.stats.opened++;
    this.startHeartbeats();
    let open = true;
    const joined = channel;
    return () => {
      if (!open) return;
      open = false;
      this.held--;
      joined.subscribers.delete(subscriber);
      if (joined.subscribers.size === 0 && this.channels.get(key) === joined) {
        this.channels.delete(key);
        joined.unwatch();
      }
      if (this.held === 0) this.stopHeartbeats();
    };
  }

  /** Ends every stream (each transport closes its connection) and refuses new ones: the drain's first step. */
  close(): void {
    this.closing = true;
    this.stopHeartbeats();
    for (const channel of [...this.channels.values()]) for (const subscriber of [...channel.subscribers]) this.safely(() => subscriber.end(), '');
  }

  private deliver(subscribers: Set<LiveSubscriber>, update: SnapshotUpdate): void {
    for (const subscriber of subscribers) {
      this.stats.delivered++;
      this.safely(() => subscriber.update(update), update.namespace);
    }
  }

  private startHeartbeats(): void {
    if (this.timer || this.options.heartbeatMs <= 0) return;
    this.timer = setInterval(() => {
      for (const [key, channel] of this.channels) for (const subscriber of channel.subscribers) this.safely(() => subscriber.heartbeat(), key);
    }, this.options.heartbeatMs);
    this.timer.unref();
  }

  private stopHeartbeats(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private safely(call: () => void, namespace: string): void {
    try {
      call();
    } catch (err) {
      this.options.onError(err, namespace);
    }
  }
}
