import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between Pennon and a real service (PostgreSQL, MySQL, Redis, a webhook receiver)
 * whose behaviour a test switches while it runs, to simulate outages without touching the
 * shared servers:
 *
 * - `pass`: bytes flow both ways.
 * - `refuse`: the port stops listening (new connections get ECONNREFUSED) and open connections
 *   are reset, as when the service's host is up but the service is down.
 * - `reset`: connections are accepted and reset at once.
 * - `blackhole`: connections are accepted and bytes are held in both directions, never
 *   answered: a network partition. Held bytes are delivered when the proxy passes again, as
 *   TCP retransmits after a partition heals — so a statement sent into the partition reaches
 *   the database later unless its connection was closed meanwhile (the proxy then closes the
 *   other side too, without delivering).
 * - `slow`: every chunk is delayed by `delayMs`.
 */
export type FaultMode = 'pass' | 'refuse' | 'reset' | 'blackhole' | 'slow';

interface Pair {
  client: Socket;
  upstream: Socket | null;
  /** Chunks waiting in each direction while blackholed (or in flight while slow). */
  toUpstream: Buffer[];
  toClient: Buffer[];
}

export class FaultProxy {
  private server: Server;
  private readonly pairs = new Set<Pair>();
  private mode: FaultMode = 'pass';
  private delayMs = 0;
  /** Connections accepted since the proxy started (whatever their fate). */
  accepted = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
    server: Server,
  ) {
    this.server = server;
  }

  /** A proxy on a free loopback port in front of `target`. */
  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    let proxy: FaultProxy | undefined;
    const server = createServer((socket) => proxy!.accept(socket));
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('the fault proxy has no port');
    proxy = new FaultProxy(target, address.port, server);
    return proxy;
  }

  /** `target` rewritten to go through the proxy: a database or Redis URL with its host and port replaced. */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Connections open now (client side). */
  get open(): number {
    return this.pairs.size;
  }

  async set(mode: FaultMode, options: { delayMs?: number } = {}): Promise<void> {
    const previous = this.mode;
    this.mode = mode;
    this.delayMs = options.delayMs ?? 0;
    if (mode === 'refuse' || mode === 'reset') {
      for (const pair of this.pairs) this.drop(pair);
    }
    if (mode === 'refuse' && previous !== 'refuse') await this.stopListening();
    if (mode !== 'refuse' && previous === 'refuse') await this.listenAgain();
    if (mode === 'pass' || mode === 'slow') for (const pair of this.pairs) this.flush(pair);
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) this.drop(pair);
    await this.stopListening();
  }

  private accept(client: Socket): void {
    this.accepted++;
    if (this.mode === 'reset' || this.mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = { client, upstream: null, toUpstream: [], toClient: [] };
    this.pairs.add(pair);
    client.on('error', () => this.drop(pair));
    client.on('close', () => this.drop(pair));
    client.on('data', (chunk) => {
      pair.toUpstream.push(chunk);
      this.flush(pair);
    });
    const upstream = connect(this.target.port, this.target.host);
    pair.upstream = upstream;
    upstream.on('error', () => this.drop(pair));
    upstream.on('close', () => this.drop(pair));
    upstream.on('data', (chunk) => {
      pair.toClient.push(chunk);
      this.flush(pair);
    });
    upstream.on('connect', () => this.flush(pair));
  }

  /** Delivers what is waiting, unless blackholed; slow mode delivers each chunk late. */
  private flush(pair: Pair): void {
    if (this.mode === 'blackhole' || !this.pairs.has(pair)) return;
    const deliver = (from: Buffer[], to: Socket | null) => {
      if (!to || to.connecting || to.destroyed) return;
      while (from.length > 0) {
        const chunk = from.shift()!;
        if (this.mode === 'slow' && this.delayMs > 0) {
          setTimeout(() => !to.destroyed && to.write(chunk), this.delayMs).unref();
        } else {
          to.write(chunk);
        }
      }
    };
    deliver(pair.toUpstream, pair.upstream);
    deliver(pair.toClient, pair.client);
  }

  private drop(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    pair.toUpstream.length = 0;
    pair.toClient.length = 0;
    pair.client.destroy();
    pair.upstream?.destroy();
  }

  private stopListening(): Promise<void> {
    return new Promise((resolve) => (this.server.listening ? this.server.close(() => resolve()) : resolve()));
  }

  /** Listens on the same port again (refuse → anything else), so URLs handed out stay valid. */
  private async listenAgain(): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }
}
