import type { Logger } from 'pino';

/** One thing to let go of at shutdown: a connection to close, a timer to stop, a buffer to flush. */
export type CloseHook = () => unknown;

/**
 * The service's shutdown, in one ordered list: each part registers how to close itself as it is
 * built, and they are closed last-built first — what was built on top of a part goes before it
 * (as Flipt's `onShutdown` stack in `internal/cmd/grpc.go`): the poller before the cache, the
 * cache before the database, tracing last so that the last queries' spans are exported.
 *
 * Every hook runs even when one before it fails (a Redis that will not close must not keep the
 * database open); the first failure is thrown once all have run. Closing twice closes once.
 */
export class CloseHooks {
  private readonly hooks: { name: string; close: CloseHook }[] = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly logger?: Logger) {}

  /** Registers a part's hook; it runs before every hook registered earlier. */
  add(name: string, close: CloseHook): void {
    if (this.closing) throw new Error(`"${name}" was registered after the service began to close`);
    this.hooks.push({ name, close });
  }

  /** The names, in the order close() runs them (for logs and tests). */
  order(): string[] {
    return this.hooks.map((h) => h.name).reverse();
  }

  close(): Promise<void> {
    return (this.closing ??= this.closeAll());
  }

  private async closeAll(): Promise<void> {
    let failure: { err: unknown } | undefined;
    for (const hook of [...this.hooks].reverse()) {
      try {
        await hook.close();
      } catch (err) {
        this.logger?.error({ err, part: hook.name }, 'closing a part of the service failed');
        failure ??= { err };
      }
    }
    if (failure) throw failure.err;
  }
}
