/**
 * One fetch per repository at a time: one running, at most one queued. A request during a
 * run queues exactly one more run (later requests join it), because the running fetch may
 * have read the remote's refs before the push that prompted the request landed — a plain
 * "join the running fetch" (singleflight) would lose that push until the next poll.
 */
export class SyncQueue<T> {
  private running: Promise<T> | null = null;
  private queued: Promise<T> | null = null;
  /** Runs started, for tests and metrics. */
  runs = 0;

  constructor(private readonly run: () => Promise<T>) {}

  /** Resolves when a run that started after this call has finished. */
  request(): Promise<T> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    this.queued = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.start();
      });
    return this.queued;
  }

  /** Whether a run is going on or waiting (a stop waits for it). */
  idle(): Promise<void> {
    const last = this.queued ?? this.running;
    return last ? last.then(() => this.idle(), () => this.idle()) : Promise.resolve();
  }

  private start(): Promise<T> {
    this.runs++;
    const promise = this.run().finally(() => {
      if (this.running === promise) this.running = null;
    });
    this.running = promise;
    return promise;
  }
}
