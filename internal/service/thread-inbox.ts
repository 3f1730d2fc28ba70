/** Messages in arrival order, taken one at a time; a failure is taken after what came before it. */
export class Inbox<T> {
  private readonly queue: T[] = [];
  private failure: Error | null = null;
  private waiting: { resolve: (value: T) => void; reject: (err: Error) => void } | null = null;

  put(value: T): void {
    if (this.waiting) {
      this.waiting.resolve(value);
      this.waiting = null;
    } else this.queue.push(value);
  }

  fail(err: Error): void {
    this.failure ??= err;
    if (this.waiting && this.queue.length === 0) {
      this.waiting.reject(this.failure);
      this.waiting = null;
    }
  }

  take(): Promise<T> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift()!);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }
}
